"""Formatting: the layout of `json.dumps(indent=2)`, as the fewest whitespace edits.

Only the whitespace between tokens changes, so key order, duplicate keys, number
spellings and escapes all stay exactly as written: the text after formatting has the
same tokens as before.  A text with syntax errors is left alone (an edit next to an
unterminated string could move text into it); the answer is then no edits.

Layout (as `json.dumps(value, indent=n)`): a line per member and per item, `": "`
after a key, empty containers as `{}` and `[]`.  The indent unit and the final
newline follow the client's formatting options.
"""

from __future__ import annotations

from dataclasses import dataclass

from .jsontree import ParsedDocument
from .tokens import CLOSERS, OPENERS, tokens

__all__ = ["Layout", "format_edits", "closed_container"]

Edit = tuple[int, int, str]


@dataclass(frozen=True, slots=True)
class Layout:
    """What the client's FormattingOptions say (defaults: json.dumps(indent=2))."""

    tab_size: int = 2
    insert_spaces: bool = True
    insert_final_newline: bool = False

    @property
    def unit(self) -> str:
        return " " * max(0, min(self.tab_size, 16)) if self.insert_spaces else "\t"


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _wanted(prev: str, nxt: str, depth: int, unit: str, newline: str) -> str | None:
    """The whitespace between two tokens; `depth`: containers open after `prev`."""
    if prev in OPENERS:
        return "" if nxt == OPENERS[prev] else newline + unit * depth
    if nxt in CLOSERS:
        return newline + unit * (depth - 1)
    if prev == ",":
        return newline + unit * depth
    if prev == ":":
        return " "
    if nxt in ",:":
        return ""
    return None  # two values in a row: not valid JSON, keep what is there


def _trailing(gap: str, layout: Layout, newline: str) -> str:
    """One line break at the end when there was one (or the client asks for it)."""
    return newline if layout.insert_final_newline or "\n" in gap or "\r" in gap else ""


def format_edits(doc: ParsedDocument, layout: Layout = Layout(),
                 start: int = 0, end: int | None = None) -> list[Edit]:
    """Edits that lay out text[start:end] (the whole text by default); only gaps that lie
    inside the range are touched.  No edits for a text with syntax errors."""
    text = doc.text
    if doc.errors or doc.root is None:
        return []
    end = len(text) if end is None else end
    whole = start <= 0 and end >= len(text)
    unit, newline = layout.unit, _newline(text)
    edits: list[Edit] = []
    depth = 0
    prev: tuple[int, int, str] | None = None
    for token in tokens(text):
        t_start, _t_end, char = token
        if prev is None:
            if whole and t_start > 0:
                edits.append((0, t_start, ""))
        elif prev[1] >= start and t_start <= end:
            want = _wanted(prev[2], char, depth, unit, newline)
            if want is not None and text[prev[1]:t_start] != want:
                edits.append((prev[1], t_start, want))
        if char in OPENERS:
            depth += 1
        elif char in CLOSERS:
            depth -= 1
        prev = token
    if whole and prev is not None:
        gap = text[prev[1]:]
        want = _trailing(gap, layout, newline)
        if gap != want:
            edits.append((prev[1], len(text), want))
    return edits


def closed_container(doc: ParsedDocument, offset: int) -> tuple[int, int] | None:
    """[start, end) of the object or array whose closer ends right before `offset` (the
    `}` or `]` just typed), for on-type formatting; None otherwise."""
    text = doc.text
    closer = offset - 1
    if not 0 <= closer < len(text) or text[closer] not in CLOSERS:
        return None
    stack: list[int] = []
    for t_start, _t_end, char in tokens(text, 0, offset):
        if char in OPENERS:
            stack.append(t_start)
        elif char in CLOSERS and stack:
            opener = stack.pop()
            if t_start == closer:
                return opener, offset
    return None
