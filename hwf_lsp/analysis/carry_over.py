"""The one keystroke carry-over: an edit inside a string value keeps every other token.

The rule: when a text without syntax errors (the *base*) changes only strictly inside
one string value, and that value stays one JSON string, the new text has the same tree
but for that string: every token after it moved by the edit's length change, nothing
else.  So its findings are the full check's, computed without a parse: the rulebook
(`collect_defects`) and the lint on the base's value with that one string replaced,
located in the base's tree, every offset after the string moved.

Two values are left to the full check: a condition's `expression` (its findings point
inside the string, at offsets that move with the text typed) and the design's `name`
(it chooses the run whose outputs the lint reads).  A finding whose range would end
strictly inside the edited string is refused all the same.  Keystrokes that follow in
the same string keep the same base: the text still differs from it in that one string.

The same rule gives the new text's document without decoding it (`Carried.document`):
its value is the base's with that string replaced, every other node the base's very
object (a request right after a keystroke on a 5,000-node design skips ~30 ms of
decoding, and `after` completion reuses the edges: remembered_edges.py).

Pure: offsets are code points of the texts, no protocol types.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from .check import rulebook_findings
from .jsontree import JsonNode, Member, ParsedDocument, moved_valid
from .lint import sorted_warnings
from .locate import Finding, moved

__all__ = ["Carried", "carry_over", "may_be_in_a_string", "string_value_at"]

NOT_CARRIED = frozenset({"expression", "name"})
"""Keys whose string values always take the full check (see the module's docstring)."""


@dataclass(frozen=True, slots=True)
class Carried:
    """A text that differs from the base only inside one string value, and its findings."""

    base: ParsedDocument
    span: tuple[int, int]
    """[start, end) of that string's token (quotes included) in the base's text."""
    path: tuple[str | int, ...] | None
    """Where its value sits in the base's value; None when the value does not count (a
    repeated key's losing member: the document's value keeps the last one)."""
    delta: int
    """How much longer the text is than the base's (all of it inside the string)."""
    value: Any
    """The text's value: the base's with the string replaced."""
    findings: list[Finding]

    def document(self, text: str) -> ParsedDocument:
        """The document of `text` (the text this state is of), without decoding it again:
        its value is `value`, its top levels the base's moved (`jsontree.moved_valid`)."""
        return moved_valid(self.base, text, self.value, self.span[1], self.delta)

    @property
    def now(self) -> tuple[int, int]:
        """The string token's [start, end) in the text."""
        return self.span[0], self.span[1] + self.delta


def string_value_at(base: ParsedDocument, start: int, end: int) -> Carried | None:
    """The base itself as a Carried (no change yet) around the string value whose quotes
    strictly enclose [start, end); None when there is none, or it is not carried (a key,
    an expression, the name) or the base has syntax errors."""
    if base.errors or start > end or not may_be_in_a_string(base.text, start):
        return None
    chain = base.path_to_offset(start)
    token = chain[-1] if chain else None
    if not (isinstance(token, JsonNode) and token.kind == "string" and token.closed
            and token.start < start <= end < token.end):
        return None  # a key ends its chain on its Member
    path: list[str | int] | None = []
    for parent, step in zip(chain, chain[1:], strict=False):
        if isinstance(step, Member):
            if path is not None:
                path.append(step.key)
            # by position, not identity: two threads expanding one container at the same
            # time build equal children as different objects (jsontree._expand)
            winner = _last_member(parent, step.key)
            if winner is None or winner.key_start != step.key_start:
                path = None  # a losing duplicate: the value keeps the last one
        elif isinstance(step, JsonNode) and isinstance(parent, JsonNode) and parent.items:
            if path is not None:
                path.append(next(i for i, item in enumerate(parent.items)
                                 if item.start == step.start))
    member = chain[-2] if len(chain) >= 2 else None
    if isinstance(member, Member) and member.key in NOT_CARRIED:
        return None
    return Carried(base, (token.start, token.end), tuple(path) if path is not None else None,
                   0, base.to_python(), [])


_QUOTE_OR_ESCAPE = re.compile(r'\\.|"')
_LINE_READ_UP_TO = 10_000
"""Longer line prefixes (a design on one line) are not read: the tree answers instead."""


def may_be_in_a_string(text: str, offset: int) -> bool:
    """False when `offset` of a valid JSON text is surely outside every string: no string
    holds a line break, so the line's quotes before it, escapes skipped, are even.  Saves
    building the tree down to a `,` or `}` just typed (5,000 nodes: 5 ms)."""
    line = max(text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)) + 1
    if offset - line > _LINE_READ_UP_TO:
        return True
    quotes = sum(m.group() == '"' for m in _QUOTE_OR_ESCAPE.finditer(text, line, offset))
    return quotes % 2 == 1


def carry_over(state: Carried, text: str, start: int, end: int, replacement: str,
               run_outputs: dict | None) -> Carried | None:
    """The state after text[start:end] became `replacement` (`text`: the text `state` is
    of), or None when the edit is not strictly inside its string or leaves it no string:
    then check in full.  `run_outputs` as for check_document."""
    now_start, now_end = state.now
    if not now_start < start <= end < now_end:
        return None
    token = text[now_start:now_end]
    new_token = token[: start - now_start] + replacement + token[end - now_start:]
    try:  # a text from a quote to a quote that decodes is exactly one string token
        decoded = json.loads(new_token)
    except ValueError:
        return None
    if not isinstance(decoded, str):
        return None
    value = state.value
    if state.path is not None:
        value = _replaced(state.base.to_python(), state.path, decoded)
    base = state.base
    delta = state.delta + len(replacement) - (end - start)
    findings = rulebook_findings(base, value) + sorted_warnings(base, value, run_outputs)
    span_start, span_end = state.span
    if any(span_start < start < span_end or span_start < end < span_end
           for start, end in _spans(findings)):
        return None  # a range inside the string: it would not just move
    if delta:
        findings = [moved(f, span_end, delta) for f in findings]
    return Carried(base, state.span, state.path, delta, value, findings)


def _spans(findings: list[Finding]):
    """Every [start, end) a finding marks: its own and its related places'."""
    for f in findings:
        yield f.start, f.end
        for r in f.related:
            yield r.start, r.end


def _replaced(value: Any, path: tuple[str | int, ...], new: Any) -> Any:
    """`value` with the one at `path` replaced; only the containers on the path are copied
    (the base's value is never changed)."""
    if not path:
        return new
    copy: Any = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = _replaced(value[path[0]], path[1:], new)
    return copy


def _last_member(obj: Any, key: str) -> Member | None:
    for member in reversed(obj.members or ()):
        if member.key == key:
            return member
    return None
