"""A defect: one broken rule, located as precisely as the rulebook knows.

The public contract (`validate_designer_graph`) returns plain dicts with keys
node, field, msg and index.  Tools inside this package need more: which rule
was broken (diagnostic codes), which element of a list field, and which slice
of a condition string.  `Defect` carries all of it; `as_dict` drops the extras.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Defect:
    rule: str
    """A key of vocabulary.RULES (or EDITOR_RULES for editor-only checks)."""
    msg: str
    node: str | None = None
    """The node's id; None for a graph-level defect or a node without a usable id."""
    field: str | None = None
    index: int | None = None
    """Position of the node in `nodes`, for a defect about one node."""
    element: int | None = None
    """Position inside a list field (`after`, `options`) when one element is at fault."""
    span: tuple[int, int] | None = None
    """[start, end) inside the field's string value (a condition's offending token)."""

    def as_dict(self) -> dict[str, Any]:
        """The contract-1 form: node, field, msg and, for a node defect, index."""
        out: dict[str, Any] = {"node": self.node, "field": self.field, "msg": self.msg}
        if self.index is not None:
            out["index"] = self.index
        return out


MAX_DEFECTS_IN_ERROR = 5


def format_defects(what: str, defects: list[dict[str, Any]], limit: int = MAX_DEFECTS_IN_ERROR) -> str:
    """`<what> has N defect(s): node/field: msg; ...` — the first `limit` of them."""
    parts = []
    for defect in defects[:limit]:
        where = "/".join(str(x) for x in (defect.get("node"), defect.get("field")) if x)
        parts.append(f"{where}: {defect.get('msg')}" if where else str(defect.get("msg")))
    more = f" (and {len(defects) - limit} more)" if len(defects) > limit else ""
    plural = "s" if len(defects) != 1 else ""
    return f"{what} has {len(defects)} defect{plural}: " + "; ".join(parts) + more
