"""Which documents are designs (or design test files), and what the server last learned
about each one.

Only files matching the design globs get anything from the server (docs/commands.md):
a package.json open next to a design must stay untouched.  Globs are matched on
the file's path, absolute and relative to each workspace folder, with `**`
spanning directories and `*` staying inside one.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any
from urllib.parse import unquote, urlparse

from hwf_lsp.analysis.design import Design, design_of
from hwf_lsp.analysis.findings import check_document, rules_waiting
from hwf_lsp.jsontext.jsontree import parse
from hwf_lsp.jsontext.positions import LineIndex
from hwf_lsp.server.design_test_documents import (
    TEST_KIND,
    DesignSource,
    check_test_text,
    is_test_path,
)
from hwf_lsp.workflow.design_files import design_name_for

log = logging.getLogger(__name__)


@lru_cache(maxsize=64)
def glob_regex(glob: str) -> re.Pattern[str]:
    """A compiled regex for one glob: `**/` any directories, `*`, `?`, `{a,b}`, `[...]`."""
    out: list[str] = []
    i, n = 0, len(glob)
    depth = 0
    while i < n:
        char = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "{":
            out.append("(?:")
            depth += 1
        elif char == "}" and depth:
            out.append(")")
            depth -= 1
        elif char == "," and depth:
            out.append("|")
        elif char == "[":
            close = glob.find("]", i + 1)
            if close > i + 1:
                body = glob[i + 1 : close].replace("\\", "\\\\")
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = close + 1
                continue
            out.append(re.escape(char))
        else:
            out.append(re.escape(char))
        i += 1
    out.append(")" * depth)
    try:
        return re.compile("".join(out))
    except re.error:
        return re.compile(re.escape(glob))


def uri_to_path(uri: str) -> str | None:
    """The file-system path of a `file:` URI with forward slashes, else None."""
    try:
        parsed = urlparse(uri)
    except ValueError:
        return None
    if parsed.scheme != "file":
        return None
    path = unquote(parsed.path)
    if re.match(r"^/[A-Za-z]:", path):  # file:///C:/x -> C:/x
        path = path[1:]
    return path.replace("\\", "/")


@lru_cache(maxsize=32)
def design_matcher(globs: tuple[str, ...], folders: tuple[str, ...] = ()
                   ) -> Callable[[str], bool]:
    """Whether a file path (forward slashes) is a design: one of `globs` matches it,
    absolute or relative to one of `folders`.  Compiled once per settings and folders,
    so asking costs a few regex matches for any number of files (no per-file cache to
    outgrow)."""
    regexes = tuple(glob_regex(glob.replace("\\", "/")) for glob in globs)
    bases = tuple(dict.fromkeys((uri_to_path(folder) or folder).rstrip("/") + "/"
                                for folder in folders))

    def matches(path: str) -> bool:
        candidates = [path, *(path[len(base):] for base in bases if path.startswith(base))]
        return any(regex.fullmatch(candidate) for regex in regexes for candidate in candidates)

    return matches


@lru_cache(maxsize=256)
def is_design_uri(uri: str, globs: tuple[str, ...], folders: tuple[str, ...] = ()) -> bool:
    """True when `uri` names a file that one of `globs` matches.  Asked on every keystroke,
    so the open documents' answers are kept; a walk of the workspace asks
    `design_matcher` directly (paths, no URIs), so thousands of files never crowd them out."""
    path = uri_to_path(uri)
    return bool(path) and design_matcher(globs, folders)(path)


@dataclass(slots=True)
class Analysis:
    """Everything computed from one version of a document's text.

    Findings and the design are computed on first use: completion and hover need the
    tree and the run, not the verdict, and a keystroke's check needs no design.  An
    analysis is used by one thread at a time: one made on the validation worker is
    handed to the event loop (the executor's future) and never touched there again, so
    whatever is built on first use is built once, whole, by the thread holding it.
    """

    uri: str
    version: int | None
    text: str
    _doc: Any = field(default=None, repr=False)
    run: Any = None
    """analysis.newest_run.RunInfo of the newest run of this design, or None."""
    stale: bool = False
    """Set when outside data (runs on disk) may have changed: recompute even this version."""
    _findings: list[Any] | None = field(default=None, repr=False)
    _lines: LineIndex | None = field(default=None, repr=False)
    kind: str = "design"
    """"design", or "test" for a design test file (server/design_test_documents.py)."""
    design_under_test: Any = None
    """A test file's design under test (a dict as read from disk), or None."""
    _design: Design | None = field(default=None, repr=False)

    @property
    def doc(self) -> Any:
        """jsontext.jsontree.ParsedDocument of `text`."""
        if self._doc is None:
            self._doc = parse(self.text)
        return self._doc

    @property
    def design(self) -> Design:
        """The design the editor features read (nodes by id, kinds, order) of this version."""
        if self._design is None:
            self._design = design_of(self.doc)
        return self._design

    @property
    def findings(self) -> list[Any]:
        """analysis.findings.Finding, syntax then rulebook then warnings (then, over the
        node cap, the word that the other rules wait: `rules_waiting`)."""
        if self._findings is None:
            outputs = self.run.outputs if self.run is not None else None
            self._findings = rules_waiting(check_document(self.doc, run_outputs=outputs))
        return self._findings

    @property
    def lines(self) -> LineIndex:
        if self._lines is None:
            self._lines = LineIndex(self.text)
        return self._lines


def analyse(uri: str, version: int | None, text: str, runs: Any = None, *,
            check: bool = True, source: Callable[[], DesignSource] | None = None,
            run_cases: bool = False) -> Analysis:
    """Parse (and with `check`, check) one version of a design, with its newest run.

    One parse serves the design name (which run to read), the rulebook and the lint.
    A design test file is checked against the design it names (found and read through
    `source()`, asked only for a test file: a keystroke in a design pays nothing),
    always: its check reads that design anyway; with `run_cases` its cases run too (open
    and save, never a keystroke).
    """
    path = uri_to_path(uri)
    if is_test_path(path):
        doc, findings, design = check_test_text(text, path or uri, source() if source else None,
                                                 run_cases)
        return Analysis(uri=uri, version=version, text=text, _doc=doc, _findings=findings,
                        kind=TEST_KIND, design_under_test=design)
    doc = parse(text)
    run = None
    if runs is not None:
        try:
            top = doc.to_python()
            run = runs.newest(design_name_for(top, path))
            if run is not None:
                run = run.with_design(top)  # a foreign run's failed step, by this design
        except Exception:  # run data is a bonus, never a failure
            log.exception("reading runs failed")
    result = Analysis(uri=uri, version=version, text=text, _doc=doc, run=run)
    if check:
        result.findings  # noqa: B018 - computed here, in the caller's thread
    return result
