"""Inlay hints: each step's position in the run plan and each node's status in the newest run.

Shown right after the node's id value: `"id": "review" #2 ✓ done`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..jsontext.jsontree import ParsedDocument
from .design import design_of
from .hover_text import STATUS_LABELS
from .runs_index import RunInfo

PLAN, STATUS = "plan", "status"


@dataclass(frozen=True, slots=True)
class Hint:
    offset: int
    label: str
    kind: str
    """PLAN or STATUS."""
    tooltip: str | None = None


def hints(doc: ParsedDocument, run: RunInfo | None = None, start: int = 0,
          end: int | None = None) -> list[Hint]:
    """Hints whose offset lies in [start, end]."""
    design = design_of(doc)
    end = len(doc.text) if end is None else end
    plan = {ident: i + 1 for i, ident in enumerate(design.plan_order())}
    total = len(plan)
    out: list[Hint] = []
    for info in design.infos:
        member = info.member("id")
        if member is None or member.value is None or info.id is None:
            continue
        if design.by_id.get(info.id) is not info:
            continue
        offset = member.value.end
        if not start <= offset <= end:
            continue
        position = plan.get(info.id)
        if position is not None:
            out.append(Hint(offset, f"#{position}", PLAN,
                            f"Step {position} of {total} in the run plan"))
        if run is not None:
            status = run.node_status(info.id)
            if status is not None:
                out.append(Hint(offset, STATUS_LABELS[status], STATUS,
                                f"In run {run.run_id} ({run.status})"))
    return out
