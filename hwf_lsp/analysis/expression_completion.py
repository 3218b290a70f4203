"""Completion of a condition's expression outside the document: the canvas's inspector.

The inspector edits a condition's `expression` in an input of its own, not in the text,
yet offers what the text editor offers there (`completion_items.expression_items`: the
node ids the condition may read, the newest run's paths, operators, literals).  The
expression is given as it is shown (not JSON-escaped) and offsets count UTF-16 code
units, as JavaScript strings do.  Pure: the language server's `hwf.completeExpression`
and the dashboard's route answer with it.
"""

from __future__ import annotations

from typing import Any

from ..jsontext.jsontree import ParsedDocument
from ..jsontext.positions import code_points, units
from .completion_items import expression_items
from .design import design_of
from .newest_run import RunInfo

__all__ = ["ExpressionCompletionError", "complete_expression"]

UTF16 = "utf-16"  # JavaScript strings count UTF-16 code units


class ExpressionCompletionError(ValueError):
    """A request that cannot be answered; the message says why."""


def complete_expression(doc: ParsedDocument, node_id: str, expression: str, offset: int,
                        run: RunInfo | None = None) -> dict[str, Any]:
    """`{"items": [{label, kind, text, start, end, detail?, documentation?}]}` for the
    cursor at UTF-16 `offset` of the expression of node `node_id`, best first; accepting
    an item replaces [start, end) of the expression (UTF-16 offsets) with its `text`.
    No items for a node the design does not have (renamed or deleted meanwhile)."""
    design = design_of(doc)
    info = design.by_id.get(node_id)
    if info is None:  # renamed or deleted meanwhile: nothing to offer, nothing wrong
        return {"items": []}
    if not 0 <= offset <= units(expression, UTF16):
        raise ExpressionCompletionError(f"offset {offset} is outside the expression")
    at = code_points(expression[:offset], offset, UTF16)  # a prefix at least that long
    items = expression_items(expression, at, design, info, run, in_json=False)
    items.sort(key=lambda item: (item.sort_text or item.label, item.label))
    out = []
    for item in items:
        entry: dict[str, Any] = {
            "label": item.label, "kind": item.kind, "text": item.insert_text,
            "start": units(expression[:item.start], UTF16),
            "end": units(expression[:item.end], UTF16),
        }
        if item.detail:
            entry["detail"] = item.detail
        if item.documentation:
            entry["documentation"] = item.documentation
        out.append(entry)
    return {"items": out}
