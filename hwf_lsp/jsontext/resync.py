"""Where the tolerant parser picks up again after a syntax error.

A syntax error should cost the smallest container it breaks, not the rest of the text.
The parser (`tolerant_parser._Builder`) asks these questions at the tokens where text that is
being typed usually goes wrong; each answer is a look at the text, never a second parse:

- `string_end`: where a string missing its closing quote really ends.  At the end of its
  line it stops before the separators that end the line (`"agent,` is `"agent` then `,`);
  closed by the next string's opening quote (`"agent, "title": …`, a quote followed by a
  letter never closes a string) it stops before the separators it swallowed.
- `stray_closer`: a `}` or `]` that matches an outer container, not the innermost one,
  is stray when the closers left in the text balance the open containers without it
  (`}}` after a node), else it closes the inner ones (a `]` or `}` that is missing).
- `object_follows`: `{` then `"key":` where a key or a `,` belongs, inside an array:
  the object before it is missing its `}` (the next node starts here).
- `member_follows`: a string then `:` in an array: an object is missing its `{`.
- `stray_quote`: a `"` followed (blanks and line breaks skipped) by `{"key":` opens no
  string (no JSON string holds a line break or an unescaped quote): it was typed by
  mistake before a node, and the node after it is read as if it were not there.  So is a
  lone `"` at the end of a line right after an item.
- `stray_opener`: a `{` or `[` before a node (`{"key":`), a `[` before a key, or an
  opener right after an item, that the rest of the text never closes (the bracket
  balance, as for a closer): typed by mistake.

Offsets are Python string indices, as in jsontree.
"""

from __future__ import annotations

import re
from bisect import bisect_right

__all__ = ["NODE", "BracketBalance", "key_follows", "member_follows", "node_follows", "object_follows", "string_end", "stray_closer",
           "stray_opener", "stray_quote"]

_SWALLOWED = " \t,:}]"
"""What a string missing its closing quote may have swallowed at its end: separators and
closers (with the blanks around them)."""
_NAME_START = re.compile(r"[A-Za-z0-9_$]")
_SPACE = re.compile(r"[ \t\r\n]*")
_KEY = re.compile(r'[ \t\r\n]*"(?:[^"\\\r\n]|\\.)*"[ \t\r\n]*:')
NODE = re.compile(r'[ \t\r\n]*\{' + _KEY.pattern)
"""Blanks, then `{` opening an object with a property: `object_follows` after `_SPACE`;
matched where a character ends, `node_follows`."""
_BRACKETS = re.compile(r'"(?:[^"\\\r\n]|\\.)*"?|[{}\[\]]')


def string_end(text: str, quote: int, body_end: int, closed: bool) -> int | None:
    """Where the string opened at `quote` really ends, when its closing quote is missing.

    `body_end` is where its body ended (the quote that closed it, or the end of the line);
    `closed` whether a quote did close it.  None: the string is what it seems.
    """
    if closed and not (body_end + 1 < len(text) and _NAME_START.match(text, body_end + 1)):
        return None  # closed, and what follows may follow a string
    body = text[quote + 1:body_end]
    kept = len(body.rstrip(_SWALLOWED))
    if not body[kept:].strip(" \t"):
        return None  # nothing but blanks (or nothing) at its end: it swallowed no separator
    return quote + 1 + kept


def member_follows(text: str, end: int) -> bool:
    """Whether the token ending at `end` is followed by ':' (it is a property name)."""
    after = _SPACE.match(text, end).end()
    return after < len(text) and text[after] == ":"


def object_follows(text: str, brace: int) -> bool:
    """Whether the '{' at `brace` opens an object with a property (`{"key":`)."""
    return _KEY.match(text, brace + 1) is not None


def node_follows(text: str, at: int) -> bool:
    """Whether `{"key":` follows the character at `at` (blanks and line breaks between):
    one match (`NODE`), as it is asked of every item of a design's `nodes` array."""
    return NODE.match(text, at + 1) is not None


def key_follows(text: str, at: int) -> bool:
    """Whether `"key":` follows the character at `at` (blanks and line breaks between)."""
    return _KEY.match(text, at + 1) is not None


def stray_quote(text: str, quote: int, after_item: bool) -> bool:
    """Whether the '"' at `quote` opens no string: followed by `{"key":` (no JSON string
    holds a line break or an unescaped quote), or, right after an array's item where only
    `,` or `]` may come, alone at the end of its line."""
    if node_follows(text, quote):
        return True
    end = text.find("\n", quote)
    return after_item and not text[quote + 1:len(text) if end < 0 else end].strip()


class BracketBalance:
    """How many objects and arrays the text after an offset closes (closers minus openers,
    strings skipped); one scan of the text, made on first use."""

    __slots__ = ("_text", "_offsets", "_objects", "_arrays")

    def __init__(self, text: str) -> None:
        self._text = text
        self._offsets: list[int] | None = None
        self._objects: list[int] = []
        self._arrays: list[int] = []

    def _scan(self) -> None:
        offsets: list[int] = []
        objects = [0]
        arrays = [0]
        o = a = 0
        for match in _BRACKETS.finditer(self._text):
            char = match.group()
            if char == "{":
                o -= 1
            elif char == "}":
                o += 1
            elif char == "[":
                a -= 1
            elif char == "]":
                a += 1
            else:
                continue
            offsets.append(match.start())
            objects.append(o)
            arrays.append(a)
        self._offsets, self._objects, self._arrays = offsets, objects, arrays

    def closed_after(self, offset: int) -> tuple[int, int]:
        """(objects, arrays) closed by the text from `offset` on."""
        if self._offsets is None:
            self._scan()
        index = bisect_right(self._offsets, offset - 1)
        return (self._objects[-1] - self._objects[index],
                self._arrays[-1] - self._arrays[index])


def stray_closer(balance: BracketBalance, open_kinds: list[str], kind: str, end: int) -> bool:
    """Whether a closer of `kind` (an outer container's, ending at `end`) is stray.

    `open_kinds`: the open containers, outermost first.  Stray when the rest of the text
    closes the open containers better as they are than with the inner ones closed here.
    """
    objects, arrays = balance.closed_after(end)
    innermost = len(open_kinds) - 1 - open_kinds[::-1].index(kind)
    kept = open_kinds[:innermost]
    as_is = abs(objects - open_kinds.count("object")) + abs(arrays - open_kinds.count("array"))
    closing = abs(objects - kept.count("object")) + abs(arrays - kept.count("array"))
    return as_is < closing


def stray_opener(balance: BracketBalance, open_kinds: list[str], at: int) -> bool:
    """Whether the `{` or `[` at `at` (where the parser found it out of place: before a
    node, before a key, right after an item) is stray: the rest of the text closes exactly
    the open containers, leaving it unclosed (text cut short, which closes fewer, leaves
    every opener as it is)."""
    objects, arrays = balance.closed_after(at + 1)
    return (objects, arrays) == (open_kinds.count("object"), open_kinds.count("array"))
