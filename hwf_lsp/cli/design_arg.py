"""Which design a command means, read and checked before anything runs.

`hwf check` reads files; `hwf run` reads a file or a stored design by name. Both
need the same clear one-line errors for files that can't be read, so the
reading lives here once.
"""

from __future__ import annotations

import os
import shlex
from typing import Any

from hwf_lsp.analysis.findings import finding_to_contract, syntax_findings
from hwf_lsp.analysis.suggestions import did_you_mean, with_suggestions
from hwf_lsp.cli.errors import EXIT_FAILED, CliError, err, leading_path
from hwf_lsp.jsontext.jsontree import parse
from hwf_lsp.jsontext.positions import LineIndex
from hwf_lsp.rules.names import check_design_name
from hwf_lsp.rules.validator import collect_defects
from hwf_lsp.workflow.design_files import DESIGN_SUFFIXES, design_from_text
from hwf_lsp.workflow.stores import DesignStore, read_text_file

HOW_TO_LOCATE = "run `hwf check {path}` to see where"


def read_design_text(path: str) -> str:
    """The file's text (`stores.read_text_file`: BOM dropped), or CliError(exit 2) saying
    in one line why it can't be read."""
    if os.path.isdir(path):
        raise CliError(f"{path}: is a directory, not a design file")
    try:
        return read_text_file(path)
    except FileNotFoundError:
        raise CliError(f"{path}: no such file") from None
    except ValueError as exc:
        raise CliError(f"{path} {exc}") from None


def load_design(spec: str, designs: DesignStore) -> tuple[dict[str, Any], str | None, str]:
    """(design, name to file the run under or None, where it came from) for a path or a name.

    A path that exists wins (`design_from_text`: the engine's one rule for a file's design
    name); otherwise DESIGN must be a stored design's name.
    """
    if os.path.exists(spec):
        return (*design_in_file(spec, None), spec)
    try:
        check_design_name(spec)
    except ValueError:
        raise CliError(f"no design file {spec!r}, and it is not a design name either"
                       f"{did_you_mean(spec, sibling_designs(spec))}") from None
    try:
        path = designs.path(spec)  # refuses a link that leads out of the store
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if not path.exists():
        raise CliError(f"no design file {spec!r} and no design named {spec!r} in "
                       f"{designs.root}{did_you_mean(spec, designs.list())}")
    return design_in_file(str(path), spec)[0], None, str(path)


def design_in_file(path: str, name: str | None) -> tuple[dict[str, Any], str]:
    """The design in file `path` (the store's file of design `name`, when given); text
    that is not JSON is refused with the first syntax error as `hwf check` words and
    places it (`path:line:col: Trailing comma`)."""
    text = read_design_text(path)
    try:
        return design_from_text(text, path)
    except ValueError as exc:
        syntax = first_syntax_error(path, text)
        if syntax is None:  # JSON the parser reads but json.loads refuses, or not an object
            raise CliError(f"{path} {exc}; {HOW_TO_LOCATE.format(path=shlex.quote(path))}"
                           ) from None
        raise CliError(f"{f'design {name!r}: ' if name else ''}{syntax} (not valid JSON; "
                       f"`hwf check {shlex.quote(path)}` lists every error)") from None


def sibling_designs(spec: str) -> list[str]:
    """Design files beside the path `spec` names (same directory, as the user spelt it)."""
    folder = os.path.dirname(spec)
    try:
        entries = os.listdir(folder or ".")
    except OSError:
        return []
    return [os.path.join(folder, e) for e in entries if e.endswith(DESIGN_SUFFIXES)]


def refuse_defects(design: dict[str, Any], where: str) -> None:
    """A design with defects never runs: list them (exit 1) so the user can fix them, with
    the editor's did-you-mean (`with_suggestions`) added to the rulebook's words."""
    defects = with_suggestions(collect_defects(design), design)
    if not defects:
        return
    err(f"hwf run: {where} has {len(defects)} defect{'s' if len(defects) != 1 else ''}; "
        "a design with defects cannot run:")
    for defect in defects[:10]:
        subject = "/".join(str(x) for x in (defect.node, defect.field) if x)
        err(f"  {subject + ': ' if subject else ''}{defect.msg}")
    if len(defects) > 10:
        err(f"  ... and {len(defects) - 10} more")
    raise CliError(HOW_TO_LOCATE.format(path=shlex.quote(where)), EXIT_FAILED)


def where(path: str, entry: dict[str, Any]) -> str:
    """`path:line:col` of a contract-2 entry, 1-based line and column (UTF-16 columns)."""
    start = entry["range"]["start"]
    return f"{leading_path(path)}:{start['line'] + 1}:{start['character'] + 1}"


def first_syntax_error(path: str, text: str) -> str | None:
    """`path:line:col: msg` of the text's first JSON syntax error as `hwf check` and the
    editor show it (same words, same place), or None when the check finds none."""
    syntax = syntax_findings(parse(text))
    if not syntax:
        return None
    return f"{where(path, finding_to_contract(syntax[0], LineIndex(text)))}: {syntax[0].msg}"
