"""Folding: every object and array that spans lines folds, on broken text too.

Offsets of each bracket pair (jsontext/tokens.py); which pairs span lines, and where
a fold ends, is decided where lines are known (server/convert.py).
"""

from __future__ import annotations

from .jsontree import ParsedDocument
from .tokens import bracket_pairs

__all__ = ["folds"]


def folds(doc: ParsedDocument) -> list[tuple[int, int]]:
    """(opener offset, closer offset) of every container, outermost first."""
    return sorted(bracket_pairs(doc.text))
