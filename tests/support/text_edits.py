"""Offset edits `(start, end, new text)` applied to a text, as an editor applies them."""

from __future__ import annotations


def apply(text: str, edits: list[tuple[int, int, str]]) -> str:
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text
