"""Inlay hints: each step's position in the run plan and each node's status in the newest run.

Shown right after the node's id value: `"id": "review" #2 ✓ done`; the status is the
label of the engine's run facts (`rules.step_words.step_label`), never worked out here.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..jsontext.jsontree import ParsedDocument
from ..rules.step_words import step_label, step_sentence
from .design import Design, design_of
from .newest_run import RunInfo

PLAN, STATUS = "plan", "status"


@dataclass(frozen=True, slots=True)
class Hint:
    offset: int
    label: str
    kind: str
    """PLAN or STATUS."""
    tooltip: str | None = None


def hints(doc: ParsedDocument, run: RunInfo | None = None, start: int = 0,
          end: int | None = None, design: Design | None = None) -> list[Hint]:
    """Hints whose offset lies in [start, end]."""
    design = design or design_of(doc)
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
        fact = run.fact(info.id) if run is not None else None
        if fact is not None:  # the engine's facts, in its words (rules.step_words)
            out.append(Hint(offset, step_label(fact), STATUS,
                            f"In run {run.run_id} ({run.status}): {step_sentence(fact)}"))
    return out
