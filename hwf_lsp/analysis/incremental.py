"""Re-checking after a keystroke inside one value, without parsing again.

Most keystrokes land strictly inside one JSON string that is a value -- a prompt, an id,
an `after` entry, a condition -- and leave it one valid string; or in a number (retries,
a deadline) or a `true`/`false`/`null` and leave it one; or in the whitespace between
tokens (Enter, indentation) and leave it whitespace.  Such an edit keeps the document's
structure: every other token stays, moved by the length change.  So the check of the new
text needs no parse:

- its value is the previous value with that one scalar replaced (copy-on-write);
- the rulebook rechecks only what depends on the changed node (workflow/revalidate.py);
- positions come from the tree of an earlier text, the *base*, through an `EditMap` of how
  the tokens and gaps edited since then changed length;
- a defect's range depends only on its location (locate.location_key), so the ranges of
  locations the edit did not touch are carried over, shifted.

A keystroke in a free-text value (a prompt, vocabulary.FREE_TEXT_FIELDS) that keeps it a
non-blank string cannot change any finding: the findings are carried over, shifted, with
no rulebook, locate or lint at all.

Anything else -- a syntax error anywhere, an edit in a key or across tokens, a quote that
ends a string, a number turned into a word -- returns None: the caller runs the full
check, which starts a new base.
Pure: offsets are code points of the texts, no protocol types.
"""

from __future__ import annotations

import json
from bisect import bisect_right
from dataclasses import dataclass, replace
from typing import Any

from ..workflow.revalidate import CheckedGraph, recheck_graph
from ..workflow.vocabulary import FREE_TEXT_FIELDS
from .jsontree import JsonNode, Member, ParsedDocument
from .lint import sorted_warnings
from .locate import Finding, Offsets, findings_for, location_key, text_string_span

__all__ = ["EditMap", "EditedToken", "MappedOffsets", "Recheckable", "recheck", "recheckable"]

ERROR = "error"
STRING, SCALAR, GAP = "string", "scalar", "gap"
JSON_SPACE = " \t\n\r"
"""The only whitespace JSON has between tokens."""
MAX_EDITED_TOKENS = 64
"""Past this many edited strings since the base, take the full check (a new base)."""
LINTED_FIELDS = frozenset({"id", "type", "after", "expression"})
"""The node fields whose values lint reads (unknown fields: the type, and the id it names;
conditions: ids, types, `after` and expressions).  Other value edits keep the warnings."""
RUN_KEY = ("name",)
"""The design's name picks its newest run (runs_index.design_name), whose outputs some
warnings read: an edit there is checked in full, with the run read again."""


@dataclass(frozen=True, slots=True)
class EditMap:
    """Where the base text's offsets are in a later text that differs only inside scalar
    tokens and whitespace gaps: each edited one's length change, by its span in the base.
    A gap is never empty in the base: its ends must be two different offsets."""

    edits: tuple[tuple[int, int, int], ...] = ()
    """(base start, base end, length change) per edited token or gap, by start.  A change
    of 0 still marks a token: its text is not the base's (`"ou"` -> `"\\n"`)."""

    def shift_before(self, offset: int) -> int:
        """How far a base offset that is not strictly inside an edited token has moved."""
        shift = 0
        for _, end, delta in self.edits:
            if end > offset:
                break
            shift += delta
        return shift

    def at(self, offset: int) -> int:
        return offset + self.shift_before(offset)

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The later text's span of the base token [start, end)."""
        return start + self.shift_before(start), end + self.shift_before(end)

    def is_edited(self, start: int, end: int) -> bool:
        return any(edit[0] == start and edit[1] == end for edit in self.edits)

    def to_base(self, offset: int) -> tuple[int, tuple[int, int] | None]:
        """(base offset, None) for an offset of the later text, or (-1, base span) when it
        is strictly inside an edited token (whose inside has no base offset)."""
        shift = 0
        for start, end, delta in self.edits:
            now_start = start + shift
            if offset <= now_start:
                break
            if offset < end + shift + delta:
                return -1, (start, end)
            shift += delta
        return offset - shift, None

    def with_edit(self, start: int, end: int, delta: int) -> EditMap:
        """This map after the token or gap [start, end) of the base changed length by
        `delta`."""
        edits = list(self.edits)
        for i, (s, e, d) in enumerate(edits):
            if s == start and e == end:
                edits[i] = (s, e, d + delta)
                return EditMap(tuple(edits))
        edits.insert(bisect_right(edits, start, key=lambda edit: edit[0]), (start, end, delta))
        return EditMap(tuple(edits))


class MappedOffsets(Offsets):
    """locate.Offsets from the base's tree into the later text an EditMap describes."""

    __slots__ = ("emap", "text")

    def __init__(self, emap: EditMap, text: str) -> None:
        self.emap = emap
        self.text = text

    def at(self, offset: int) -> int:
        return self.emap.at(offset)

    def string_span(self, doc: ParsedDocument, node: JsonNode,
                    span: tuple[int, int]) -> tuple[int, int]:
        if self.emap.is_edited(node.start, node.end):  # its text is the later one's
            now_start, now_end = self.emap.span(node.start, node.end)
            return text_string_span(self.text, JsonNode("string", now_start, now_end), span)
        start, end = text_string_span(doc.text, node, span)
        shift = self.emap.shift_before(node.start)  # the whole token moved as one
        return start + shift, end + shift


@dataclass(frozen=True, slots=True)
class EditedToken:
    """A scalar value or a gap that was edited: its span in the base, where its value
    sits, and what kind it is."""

    base_span: tuple[int, int]
    path: tuple[str | int, ...] | None
    """Its place in the document's value; None when it does not count (the value of a
    repeated key's losing member: the value keeps the last one) and for a gap."""
    kind: str = STRING
    """STRING: edits go strictly between its quotes.  SCALAR (a number, true, false or
    null) and GAP (whitespace between tokens): edits may touch its ends (a digit typed
    after the last one, a space after the last space)."""

    def holds(self, span: tuple[int, int], start: int, end: int) -> bool:
        """Whether the edit [start, end) stays in this token, whose span is `span` now."""
        if self.kind == STRING:
            return span[0] < start <= end < span[1]
        return span[0] <= start <= end <= span[1]

    @property
    def node_field(self) -> tuple[int, str] | None:
        """(node index, field) when the token is a node's field value (or an element of one)."""
        path = self.path
        if path is not None and len(path) >= 3 and path[0] == "nodes" \
                and isinstance(path[1], int) and isinstance(path[2], str):
            return path[1], path[2]
        return None


@dataclass(slots=True)
class Recheckable:
    """A checked text, with what the re-check of a keystroke in it reuses."""

    text: str
    findings: list[Finding]
    base: ParsedDocument
    """A parsed text without syntax errors, the same as `text` but inside string tokens."""
    emap: EditMap
    """base.text -> text."""
    graph: CheckedGraph
    """The rulebook's verdict on text's value (graph.graph), with the memo a recheck reuses."""
    ranges: dict[tuple, tuple[int, int]]
    """locate.location_key -> range in `text`, for the current defects."""
    run_outputs: dict | None
    token: EditedToken | None = None
    """The value edited last: the next keystroke inside it is found without the tree."""

    def rebased(self, doc: ParsedDocument) -> Recheckable:
        """The same state with `doc` (a parse of `text`) as the base: shorter map, and the
        tree a request already built."""
        if doc.text is not self.text and doc.text != self.text:
            return self
        token = self.token
        if token is not None:
            token = replace(token, base_span=self.emap.span(*token.base_span))
        return replace(self, base=doc, emap=EditMap(), token=token)


def recheckable(doc: ParsedDocument, findings: list[Finding], graph: CheckedGraph,
                ranges: dict[tuple, tuple[int, int]],
                run_outputs: dict | None) -> Recheckable | None:
    """The state after a full check of `doc`, or None when `doc` has syntax errors (its
    structure is not settled: every keystroke takes the full check)."""
    if doc.errors:
        return None
    return Recheckable(doc.text, findings, doc, EditMap(), graph, ranges, run_outputs)


def recheck(prev: Recheckable, start: int, end: int, replacement: str,
            text: str | None = None, *, find: bool = True) -> Recheckable | None:
    """The state of prev.text[:start] + replacement + prev.text[end:] (`text`, if the caller
    has it), or None when the edit is not inside one scalar value (EditedToken.holds) or
    does not leave it one of its kind: then run the full check.

    Without `find`, only an edit inside the value edited last is taken (no tree walk: a
    base whose tree is not built yet costs nothing)."""
    if start > end or len(prev.emap.edits) >= MAX_EDITED_TOKENS:
        return None
    spacing = not replacement.strip(JSON_SPACE) and not prev.text[start:end].strip(JSON_SPACE)
    found = _gap(prev, start, end, find) if spacing else None
    if found is None:
        found = _edited_token(prev, start, end, find)
    if found is None:
        return None
    token, (now_start, now_end) = found
    if token.path == RUN_KEY:
        return None
    old_value = new_value = None
    if token.kind != GAP:
        old_token = prev.text[now_start:now_end]
        new_token = old_token[: start - now_start] + replacement + old_token[end - now_start:]
        old_value = _one_value(old_token, token.kind == STRING)
        new_value = _one_value(new_token, token.kind == STRING)
        if old_value is _NOT_ONE or new_value is _NOT_ONE:
            return None
    if text is None:
        text = prev.text[:start] + replacement + prev.text[end:]
    delta = len(replacement) - (end - start)
    value = prev.graph.graph
    if token.path is not None:
        try:
            now = _value_at(value, token.path)
            if type(now) is not type(old_value) or now != old_value:
                return None  # the state does not describe this text: never guess
            value = _replaced(value, token.path, new_value)
        except (LookupError, TypeError):
            return None
    emap = prev.emap.with_edit(*token.base_span, delta)
    where = token.node_field
    graph = prev.graph if token.path is None else \
        recheck_graph(prev.graph, value, where[0] if where is not None else None)
    state = Recheckable(text, [], prev.base, emap, graph,
                        _carried(prev.ranges, now_start, now_end, delta), prev.run_outputs, token)
    shifted = _shifter(now_start, now_end, delta)
    if not _touches(prev.findings, now_start, now_end) and (token.path is None or (
        where is not None and len(token.path) == 3 and where[1] in FREE_TEXT_FIELDS
        and isinstance(old_value, str) and isinstance(new_value, str)
        and old_value.strip() and new_value.strip()
    )):  # nothing that counts changed, or only the wording of free text
        state.findings = [shifted(f) for f in prev.findings] if delta else list(prev.findings)
        return state
    offsets = MappedOffsets(emap, text)
    errors = findings_for(prev.base, graph.defects, ERROR, offsets, state.ranges)
    errors.sort(key=_by_start)
    if len(state.ranges) > len(errors) + 32:  # drop the locations of defects long gone
        state.ranges = {key: state.ranges[key] for key in map(location_key, graph.defects)}
    warnings = [f for f in prev.findings if f.severity != ERROR]
    if where is not None and where[1] not in LINTED_FIELDS \
            and not _touches(warnings, now_start, now_end):
        warnings = [shifted(f) for f in warnings] if delta else warnings
    else:
        warnings = sorted_warnings(prev.base, value, prev.run_outputs, offsets)
    state.findings = errors + warnings
    return state


def _touches(findings: list[Finding], start: int, end: int) -> bool:
    """Whether a finding's range meets [start, end]: its range may depend on the token."""
    return any(f.start <= end and f.end >= start for f in findings)


# --- finding the edited value ------------------------------------------------------


def _edited_token(prev: Recheckable, start: int, end: int,
                  find: bool) -> tuple[EditedToken, tuple[int, int]] | None:
    """The scalar value that holds the edit [start, end) of prev.text (EditedToken.holds),
    with its span there; None when there is none (or, without `find`, it is not the last
    one)."""
    token = prev.token
    if token is not None and token.kind != GAP:
        now = prev.emap.span(*token.base_span)
        if token.holds(now, start, end):
            return token, now
    if not find:
        return None
    base_offset, inside = prev.emap.to_base(start)
    if inside is not None:
        base_offset = inside[0] + 1
    token = _token_at(prev.base, base_offset)
    if token is None:
        return None
    now = prev.emap.span(*token.base_span)
    if not token.holds(now, start, end):
        return None
    return token, now


def _gap(prev: Recheckable, start: int, end: int,
         find: bool) -> tuple[EditedToken, tuple[int, int]] | None:
    """The whitespace between two tokens that holds the edit [start, end) of prev.text
    (which only replaces whitespace with whitespace), with its span there; None when the
    edit is inside a token (a space typed in a prompt is a string edit) or the gap is
    empty in the base (a zero-width gap has no end distinct from its start)."""
    token = prev.token
    if token is not None and token.kind == GAP:
        now = prev.emap.span(*token.base_span)
        if token.holds(now, start, end):
            return token, now
    if not find:
        return None
    base_offset, inside = prev.emap.to_base(start)
    if inside is not None:  # inside something edited before: fine if that is a gap
        if prev.base.text[inside[0]:inside[1]].strip(JSON_SPACE):
            return None
    elif _inside_a_token(prev.base, base_offset):
        return None
    text = prev.text
    gap_start, gap_end = start, end
    while gap_start > 0 and text[gap_start - 1] in JSON_SPACE:
        gap_start -= 1
    while gap_end < len(text) and text[gap_end] in JSON_SPACE:
        gap_end += 1
    (base_start, inside_start), (base_end, inside_end) = (
        prev.emap.to_base(gap_start), prev.emap.to_base(gap_end))
    if inside_start is not None or inside_end is not None or not base_start < base_end:
        return None
    now = prev.emap.span(base_start, base_end)
    if now != (gap_start, gap_end):
        return None  # the map does not describe this text: never guess
    return EditedToken((base_start, base_end), None, GAP), now


def _inside_a_token(doc: ParsedDocument, offset: int) -> bool:
    """Whether `offset` is strictly inside a string, key, number or literal of a valid
    base (a space there would be part of it, or split it)."""
    chain = doc.path_to_offset(offset)
    last = chain[-1] if chain else None
    if isinstance(last, Member):
        return last.key_start < offset < last.key_end
    return isinstance(last, JsonNode) and (
        last.kind == "string" or last.kind in _SCALAR_KINDS) and last.start < offset < last.end


def _token_at(doc: ParsedDocument, offset: int) -> EditedToken | None:
    """The value at `offset` in a valid base when it is a string (whose quotes strictly
    enclose it) or a number, true, false or null (touching it will do), if any."""
    chain = doc.path_to_offset(offset)
    if not chain:
        return None
    last = chain[-1]
    if not isinstance(last, JsonNode):
        return None  # a key: the chain ends on its Member
    quoted = last.kind == "string"
    if quoted and not (last.closed and last.start < offset < last.end) or \
            not quoted and last.kind not in _SCALAR_KINDS:
        return None  # a container, or an invalid token (not in a valid base anyway)
    path: list[str | int] = []
    counts = True
    for i in range(1, len(chain)):
        step, parent = chain[i], chain[i - 1]
        if isinstance(step, Member):
            path.append(step.key)
            # compared by position, not identity: a thread expanding the same container at
            # the same time builds equal children as new objects (jsontree._expand)
            winner = _last_member(parent, step.key)
            if counts and (winner is None or winner.key_start != step.key_start):
                counts = False
        elif isinstance(parent, JsonNode):  # an array item
            items = parent.items or []
            path.append(bisect_right(items, step.start, key=lambda n: n.start) - 1)
    return EditedToken((last.start, last.end), tuple(path) if counts else None,
                       STRING if quoted else SCALAR)


def _last_member(obj: Any, key: str) -> Member | None:
    for member in reversed(obj.members or ()):
        if member.key == key:
            return member
    return None


def _one_value(token: str, quoted: bool) -> Any:
    """The decoded value when `token` is exactly one strict JSON value of its kind -- a
    string from quote to quote, or a number, true, false or null -- as the parser's
    json.loads reads it in the document; else _NOT_ONE.  A text that starts and ends with
    a quote and decodes is one token (anything after a closing quote would be extra data);
    an unquoted one must not lean on the spaces around it.  json.loads scans it in C."""
    if not token or (not quoted and token != token.strip()):
        return _NOT_ONE
    try:
        value = json.loads(token, parse_constant=_reject)
    except ValueError:
        return _NOT_ONE
    if quoted:
        return value if isinstance(value, str) else _NOT_ONE
    return value if value is None or isinstance(value, bool | int | float) else _NOT_ONE


def _reject(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # NaN and Infinity, as the parser refuses them


_NOT_ONE: Any = object()
_SCALAR_KINDS = frozenset({"number", "true", "false", "null"})


# --- the value and the carried-over ranges ---------------------------------------------


def _value_at(value: Any, path: tuple[str | int, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def _replaced(value: Any, path: tuple[str | int, ...], new: Any) -> Any:
    """`value` with the one at `path` replaced: copies only the containers on the path, so
    every untouched node stays the same object (the rulebook's recheck relies on it)."""
    if not path:
        return new
    step = path[0]
    if isinstance(value, dict):
        copy: Any = dict(value)
    elif isinstance(value, list) and isinstance(step, int):
        copy = list(value)
    else:
        raise TypeError("path does not fit the value")
    copy[step] = _replaced(value[step], path[1:], new)
    return copy


def _shifter(token_start: int, token_end: int, delta: int) -> Any:
    """Moves a finding of the text before the edit into the text after it (the finding
    must not touch the edited token [token_start, token_end))."""
    def shifted(finding: Finding) -> Finding:
        if finding.start >= token_end:
            return replace(finding, start=finding.start + delta, end=finding.end + delta)
        return finding
    return shifted


def _carried(ranges: dict[tuple, tuple[int, int]], token_start: int, token_end: int,
             delta: int) -> dict[tuple, tuple[int, int]]:
    """The ranges not touching the edited token, moved into the new text; the others are
    located again."""
    carried: dict[tuple, tuple[int, int]] = {}
    for key, (start, end) in ranges.items():
        if start <= token_end and end >= token_start:
            continue
        if start >= token_end:
            start, end = start + delta, end + delta
        carried[key] = (start, end)
    return carried


def _by_start(finding: Finding) -> tuple[int, int]:
    return finding.start, finding.end
