"""Which documents are designs, and what the server last learned about each one.

Only files matching the design globs get anything from the server (PRODUCT.md):
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
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

from hwf_lsp.analysis.carry_over import Carried, carry_over, may_be_in_a_string, string_value_at
from hwf_lsp.analysis.check import check_document
from hwf_lsp.analysis.jsontree import parse
from hwf_lsp.analysis.positions import LineIndex, line_index
from hwf_lsp.analysis.scan_reuse import Scans, through_edit
from hwf_lsp.workflow.design_files import design_name_for

if TYPE_CHECKING:
    from hwf_lsp.server.protocol import TextEdit

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

    Findings are computed on first use: completion and hover need the tree and
    the run, not the verdict, so a request that races ahead of validation only
    pays for the parse.  Findings carried over from the previous version
    (`after_string_edit`) need no parse at all until a request asks for the tree.
    """

    uri: str
    version: int | None
    text: str
    _doc: Any = field(default=None, repr=False)
    run: Any = None
    """runs_index.RunInfo of the newest run of this design, or None."""
    stale: bool = False
    """Set when outside data (runs on disk) may have changed: recompute even this version."""
    carried: Carried | None = None
    """Set when the findings were carried over (analysis/carry_over.py): the parsed text
    this one differs from in one string value, which the next edit in it reuses."""
    _findings: list[Any] | None = field(default=None, repr=False)
    _lines: LineIndex | None = field(default=None, repr=False)

    @property
    def doc(self) -> Any:
        """analysis.jsontree.ParsedDocument of `text`."""
        if self._doc is None:
            carried = self.carried
            self._doc = carried.document(self.text) if carried is not None else parse(self.text)
        return self._doc

    @property
    def parsed(self) -> bool:
        """Whether `doc` costs no parse: built already, or carried over (its value known)."""
        return self._doc is not None or self.carried is not None

    @property
    def findings(self) -> list[Any]:
        """analysis.check.Finding, syntax then rulebook then warnings."""
        if self._findings is None:
            outputs = self.run.outputs if self.run is not None else None
            self._findings = check_document(self.doc, run_outputs=outputs)
        return self._findings

    @property
    def lines(self) -> LineIndex:
        if self._lines is None:
            self._lines = line_index(self.text)
        return self._lines


def analyse(uri: str, version: int | None, text: str, runs: Any = None, *,
            check: bool = True, reuse: Scans | Callable[[], Scans] | None = None
            ) -> Analysis:
    """Parse (and with `check`, check) one version of a design, with its newest run.

    One parse serves the design name (which run to read), the rulebook and the lint.
    `reuse`: the last parse's scans through the edit that made `text` (`jsontree.parse`).
    """
    doc = parse(text, reuse)
    run = None
    if runs is not None:
        try:
            top = doc.to_python()
            run = runs.newest(design_name_for(top, uri_to_path(uri)))
            if run is not None:
                run = run.with_design(top)  # a foreign run's failed step, by this design
        except Exception:  # run data is a bonus, never a failure
            log.exception("reading runs failed")
    result = Analysis(uri=uri, version=version, text=text, _doc=doc, run=run)
    if check:
        result.findings  # noqa: B018 - computed here, in the caller's thread
    return result


def edit_from(protocol: Any, key: str, cached: Analysis, version: int | None,
              text: str) -> TextEdit | None:
    """The document's last didChange (`protocol.last_edit`), when it made `text` (version
    `version`) from `cached.text`; else None."""
    edit = protocol.last_edit(key)
    if edit is None or edit.after is not text or edit.before is not cached.text \
            or edit.version != version:
        return None
    return edit


def carried_from(protocol: Any, key: str, cached: Analysis | None, version: int | None,
                 text: str) -> Analysis | None:
    """`text`'s analysis checked without a parse (`after_string_edit`), when the document's
    last didChange made `text` from `cached.text` inside one string value; else None.
    The diagnostics ask it, and so does a request that arrives before they ran (a hover
    read with its keystroke: the full parse it would cost is ~30 ms at 5,000 nodes)."""
    if cached is None:
        return None
    edit = edit_from(protocol, key, cached, version, text)
    if edit is None:
        return None
    try:
        return after_string_edit(cached, version, text, edit.start, edit.end, edit.replacement)
    except Exception:
        log.exception("carrying the findings of %s over failed", key)
        return None


def scans_for(protocol: Any, key: str, cached: Analysis, version: int | None,
              text: str) -> Scans | Callable[[], Scans] | None:
    """What the parse of `text` may reuse of `cached`'s parse (analysis/scan_reuse.py),
    through the didChange that made `text`: the containers it scanned, when it was of
    broken JSON; when it was of valid JSON, a function giving its arrays' items
    (`item_scans`, or the scans of the parse that found it valid after broken JSON), which
    the parse asks only if `text` is broken, or those at once when the edit almost surely
    broke it (`breaks_the_json`).  None when there is no such
    edit, or no parse."""
    if not cached.parsed:
        return None
    edit = edit_from(protocol, key, cached, version, text)
    if edit is None:
        return None
    doc = cached.doc
    if doc.errors:
        return through_edit(doc.scans, edit.start, edit.end, edit.replacement) \
            if doc.scans else None

    def items() -> Scans:  # a valid text that mended broken JSON kept what its parse scanned
        return through_edit(doc.scans or doc.item_scans(), edit.start, edit.end,
                            edit.replacement)

    return items() if breaks_the_json(doc.text, edit) else items


_STRUCTURE = frozenset('{}[],:"')


def breaks_the_json(valid: str, edit: TextEdit) -> bool:
    """Whether an edit of the valid text `valid` almost surely leaves it broken: it types
    or deletes a bracket, comma, colon or quote outside every string (a `,` after a list's
    last id).  Then the new text is parsed tolerantly at once, with the nodes handed on,
    instead of `json.loads` failing half way first (~10 ms at 5,000 nodes).  A wrong guess
    costs time, never the result: a tolerant parse that finds no error is parsed again
    as valid JSON (`jsontree.parse`)."""
    changed = edit.replacement + valid[edit.start:edit.end]
    return not _STRUCTURE.isdisjoint(changed) and not may_be_in_a_string(valid, edit.start)


def after_string_edit(prev: Analysis, version: int | None, text: str, start: int,
                      end: int, replacement: str) -> Analysis | None:
    """The analysis of `text` = prev.text[:start] + replacement + prev.text[end:] checked
    without a parse, when the edit is strictly inside one string value and keeps it one
    (analysis/carry_over.py); None when the full check is needed.

    `prev` must be checked and current (not stale).  The base is the parse the last
    carry-over used when the edit is in its string again, else prev's own parse (if it
    has one: else the full check parses the new text instead).
    """
    if prev._findings is None or prev.stale:
        return None
    state = prev.carried
    if state is None or not state.now[0] < start <= end < state.now[1]:
        if prev._doc is None:
            return None
        state = string_value_at(prev._doc, start, end)
        if state is None:
            return None
    outputs = prev.run.outputs if prev.run is not None else None
    carried = carry_over(state, prev.text, start, end, replacement, outputs)
    if carried is None:
        return None
    return Analysis(uri=prev.uri, version=version, text=text, run=prev.run, carried=carried,
                    _findings=carried.findings)
