"""Which design a command means, read and checked before anything runs.

`hwf check` reads files; `hwf run` reads a file or a stored design by name. Both
need the same clear one-line errors for files that can't be read, so the
reading lives here once.
"""

from __future__ import annotations

import os
import shlex
from typing import Any

from hwf_lsp.cli.errors import EXIT_FAILED, CliError, err
from hwf_lsp.workflow.design_files import design_from_text
from hwf_lsp.workflow.names import check_design_name
from hwf_lsp.workflow.stores import DesignStore, read_text_file
from hwf_lsp.workflow.validator import validate_designer_graph

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
        try:
            design, name = design_from_text(read_design_text(spec), spec)
        except ValueError as exc:
            raise CliError(f"{spec} {exc}; {HOW_TO_LOCATE.format(path=spec)}") from None
        return design, name, spec
    try:
        check_design_name(spec)
    except ValueError:
        raise CliError(f"no design file {spec!r}, and it is not a design name either") from None
    try:
        return designs.load(spec), None, str(designs.path(spec))
    except FileNotFoundError:
        raise CliError(f"no design file {spec!r} and no design named {spec!r} in "
                       f"{designs.root}") from None
    except ValueError as exc:
        raise CliError(str(exc)) from None


def refuse_defects(design: dict[str, Any], where: str) -> None:
    """A design with defects never runs: list them (exit 1) so the user can fix them."""
    defects = validate_designer_graph(design)
    if not defects:
        return
    err(f"hwf run: {where} has {len(defects)} defect{'s' if len(defects) != 1 else ''}; "
        "a design with defects cannot run:")
    for defect in defects[:10]:
        subject = "/".join(str(x) for x in (defect.get("node"), defect.get("field")) if x)
        err(f"  {subject + ': ' if subject else ''}{defect['msg']}")
    if len(defects) > 10:
        err(f"  ... and {len(defects) - 10} more")
    raise CliError(HOW_TO_LOCATE.format(path=shlex.quote(where)), EXIT_FAILED)
