"""The structural tokens of a JSON text: strings, punctuation and bare words, with offsets.

Formatting and folding only need where each token starts and ends and which brackets
pair up, not values: one regex pass, no tree, so they stay cheap on a 1 MB design and
work on broken text too (an unterminated string ends at its line break).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["OPENERS", "CLOSERS", "Token", "tokens", "bracket_pairs"]

OPENERS = {"{": "}", "[": "]"}
CLOSERS = {"}": "{", "]": "["}
_TOKEN = re.compile(r'"(?:[^"\\\r\n]|\\.)*"?|[{}\[\],:]|[^\s{}\[\],:"]+')

Token = tuple[int, int, str]
"""(start, end, text): text is the punctuation itself, else the token's first character."""


def tokens(text: str, start: int = 0, end: int | None = None) -> Iterator[Token]:
    """Every token of text[start:end], in order."""
    for match in _TOKEN.finditer(text, start, len(text) if end is None else end):
        s, e = match.span()
        yield s, e, text[s]


def bracket_pairs(text: str) -> list[tuple[int, int]]:
    """(opener offset, closer offset) of every bracket pair that matches, inner ones first.
    A closer that matches nothing, or an opener never closed, is left out."""
    pairs: list[tuple[int, int]] = []
    stack: list[tuple[int, str]] = []
    for start, _end, char in tokens(text):
        if char in OPENERS:
            stack.append((start, char))
        elif char in CLOSERS:
            while stack and stack[-1][1] != CLOSERS[char]:
                stack.pop()  # an unclosed inner container: recover at the outer one
            if stack:
                pairs.append((stack.pop()[0], start))
    return pairs
