"""Fix all: the safe fixes of a design applied together, as one edit.

Safe means each finding's preferred fix, and never one that takes a node out of the
design.  Fixes are applied in rounds on the rechecked text, one per node per round (two
fixes of one node may each add the field the other adds), renames of misspelt fields first
(`promt` → `prompt` is what makes "an agent node needs a prompt" go away, not a placeholder).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .findings import check_text
from .fixes import Fix, fixes_for

MAX_ROUNDS = 20
FIRST = ("json-syntax", "unknown-field", "duplicate-key", "identity", "one-trigger")
"""Rules whose fix goes first in a round: the text's shape, then the fixes that make
other findings of the node go away (a rename, a unique id, the second trigger)."""
DROPS_A_NODE = ("Delete this trigger",)
"""Fix titles that take a node out of the design: never applied by fix all."""


@dataclass(slots=True)
class FixAll:
    text: str
    """The text with every safe fix applied."""
    before: int
    """Findings before."""
    after: int
    """Findings after."""
    applied: list[str] = field(default_factory=list)
    """The titles of the fixes applied, in order."""


def fix_all(text: str, run_outputs: dict | None = None) -> FixAll:
    """Every safe fix of `text`, applied round by round until none is left."""
    doc, findings = check_text(text, run_outputs=run_outputs)
    result = FixAll(text, len(findings), len(findings))
    for _ in range(MAX_ROUNDS):
        chosen = _one_round(doc, findings, run_outputs)
        if not chosen:
            break
        text = _apply(text, [edit for fix in chosen for edit in fix.edits])
        result.applied += [fix.title for fix in chosen]
        doc, findings = check_text(text, run_outputs=run_outputs)
    result.text, result.after = text, len(findings)
    return result


def _one_round(doc, findings, run_outputs) -> list[Fix]:
    """The preferred fixes of this round: one per node, none overlapping another."""
    order = sorted(findings, key=lambda f: (f.rule not in FIRST,
                                            FIRST.index(f.rule) if f.rule in FIRST else 0,
                                            f.start))
    chosen: list[Fix] = []
    nodes: set[int] = set()
    spans: list[tuple[int, int]] = []
    for finding in order:
        if finding.index is not None and finding.index in nodes:
            continue
        fix = next((f for f in fixes_for(doc, [finding], run_outputs)
                    if f.preferred and f.title not in DROPS_A_NODE), None)
        if fix is None or any(_overlaps(edit[:2], span) for edit in fix.edits
                              for span in spans):
            continue
        chosen.append(fix)
        spans += [edit[:2] for edit in fix.edits]
        if finding.index is not None:
            nodes.add(finding.index)
    return chosen


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Two edits touch: they overlap, or insert at one spot (their order would be open)."""
    return a[0] <= b[1] and b[0] <= a[1]


def _apply(text: str, edits: list[tuple[int, int, str]]) -> str:
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def minimal_edit(old: str, new: str) -> tuple[int, int, str]:
    """One edit turning `old` into `new`: what lies between their common prefix and
    suffix ([start, end) of `old` -> text)."""
    start = 0
    limit = min(len(old), len(new))
    while start < limit and old[start] == new[start]:
        start += 1
    end_old, end_new = len(old), len(new)
    while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
        end_old -= 1
        end_new -= 1
    return start, end_old, new[start:end_new]
