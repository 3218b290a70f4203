"""Completion order from the design being written, not from the vocabulary's order.

Clients sort by `sortText` (then the label), so every rank here is a sort key.  What
comes first is what an author most likely wants next: the kind that usually follows the
node above, the fields the kind cannot run without and then those not written yet, the
node just above as a parent, a condition's direct parents before farther ancestors.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from ..rules.graph import parents_of
from ..rules.vocabulary import (
    AGENT,
    APPROVAL,
    CONDITION,
    KINDS,
    MAIN_FIELD,
    NOTE,
    OUTPUT,
    TRIGGER,
    Field,
)
from .design import Design, NodeInfo, has_output

FOLLOWS: dict[str | None, tuple[str, ...]] = {
    None: (TRIGGER, AGENT, CONDITION, APPROVAL, OUTPUT, NOTE),
    TRIGGER: (AGENT, CONDITION, APPROVAL, OUTPUT, NOTE),
    AGENT: (AGENT, OUTPUT, CONDITION, APPROVAL, NOTE),
    CONDITION: (APPROVAL, AGENT, OUTPUT, NOTE),
    APPROVAL: (OUTPUT, AGENT, CONDITION, NOTE),
    OUTPUT: (NOTE, AGENT, OUTPUT, CONDITION, APPROVAL),
    NOTE: (AGENT, CONDITION, APPROVAL, OUTPUT, NOTE),
}
"""The kinds that usually follow a node of a kind (the examples' and templates' shapes)."""

AFTER_A_SECOND_AGENT = (CONDITION, OUTPUT, AGENT, APPROVAL, NOTE)
"""After an agent that runs after another agent (a review of a draft): a condition gates
on its verdict, or an output delivers the result."""

AFTER_AN_OUTPUT_AND_A_NOTE = (OUTPUT, AGENT, CONDITION, APPROVAL, NOTE)
"""Below an output and the note written after it: a second delivery of the same result
(the note has been written; another note first would be a guess against the author)."""

FIELD_ORDER = ("id", "type", "title")
"""Written first in every example, before the kind's own fields."""


def kinds_for(design: Design, index: int | None, new: bool = False) -> list[str]:
    """The kinds the node at `index` (a `new` one inserted there) may take, likeliest
    first: a trigger only when the design has none other (never a second one), then what
    follows the step above."""
    above = step_above(design, index)
    order = list(FOLLOWS.get(above.kind if above is not None else None, KINDS))
    if above is not None and above.kind == AGENT and _runs_after_an_agent(design, above):
        order = list(AFTER_A_SECOND_AGENT)
    if _note_right_above(design, index):
        order = list(AFTER_AN_OUTPUT_AND_A_NOTE) if above is not None and above.kind == OUTPUT \
            else [k for k in order if k != NOTE] + [NOTE]
    order += [k for k in KINDS if k not in order]
    others = [i for i in design.infos if i.kind == TRIGGER and (new or i.index != index)]
    if others:
        order.remove(TRIGGER)
    elif above is None or TRIGGER not in {i.kind for i in design.infos}:
        order.remove(TRIGGER)
        order.insert(0, TRIGGER)
    return order


def _runs_after_an_agent(design: Design, info: NodeInfo) -> bool:
    return any(design.by_id[p].kind == AGENT for p in parents_of(info.data)
               if isinstance(p, str) and p in design.by_id)


def _note_right_above(design: Design, index: int | None) -> bool:
    infos = design.infos if index is None else design.infos[:index]
    return bool(infos) and infos[-1].kind == NOTE


def step_above(design: Design, index: int | None) -> NodeInfo | None:
    """The last node before `index` (the end when None) with an id that is not a note."""
    infos = design.infos if index is None else design.infos[:index]
    return next((i for i in reversed(infos) if i.id is not None and i.kind != NOTE), None)


def written_like(design: Design, info: NodeInfo | None) -> list[str]:
    """The field order of the node this one is most likely written like: the nearest one
    above of the same kind, else the nearest one above (authors keep their own order)."""
    if info is None:
        return []
    above = design.infos[:info.index]
    model = next((i for i in reversed(above) if i.kind == info.kind and i.kind), None) \
        or next((i for i in reversed(above) if i.kind), None)
    return list(model.data) if model is not None else []


def field_sort(kind: str | None, field: Field, model: list[str],
               written: dict[str, Any] | None = None) -> str:
    """By what the node needs next: id and type while missing; a new node's title when
    its model node starts with one; what the node cannot run without (its required
    fields, its main one, `target` once `deliver` is `channel`, an approval's options and
    deadline once it asks, `on_timeout` once there is a deadline); then the fields the design's model node writes, in its order
    (`written_like`); `after` for a step; the rest in the vocabulary's order."""
    written = written or {}
    name = field.name
    if name in ("id", "type"):
        group, order = 0, FIELD_ORDER.index(name)
    elif name == "title" and name in model and not set(written) - {"id", "type"}:
        group, order = 0, 2
    elif needed(kind, field, written):
        group, order = 1, 0
    elif name in model:
        group, order = 2, model.index(name)
    elif name == "after":  # a trigger or a note runs after nothing
        group, order = (3, 0) if kind not in (TRIGGER, NOTE) else (5, 0)
    elif name == "title":
        group, order = 3, 1
    else:
        group, order = 4, 0
    return f"{group}{order:02d}"


def needed(kind: str | None, field: Field, written: dict[str, Any]) -> bool:
    """Whether the node cannot do its job without `field`, given what it holds."""
    name = field.name
    if field.required or (kind in MAIN_FIELD and MAIN_FIELD[kind] == name and kind != TRIGGER):
        return True
    if name == "target":
        return written.get("deliver") == "channel"
    if name == "options":  # a question's answers follow it
        return "question" in written
    if name == "timeout_minutes":  # a person may never answer: an approval's deadline
        return kind == APPROVAL and "question" in written
    return name == "on_timeout" and "timeout_minutes" in written


def value_context(design: Design, info: NodeInfo | None) -> dict[str, Any]:
    """What a new field's value may name: the parent a node most likely has (the step
    above) and the node a condition most likely reads (its nearest readable ancestor)."""
    index = info.index if info is not None else None
    above = step_above(design, index)
    out: dict[str, Any] = {"parent": above.id if above is not None else None}
    if info is not None:
        readable = readable_nodes(design, info)
        out["upstream"] = readable[0][1].id if readable and readable[0][0] < 99 else None
    elif above is not None and has_output(above.kind):
        out["upstream"] = above.id
    return out


def graph_distance(design: Design, start: str | None) -> dict[str, int]:
    """Ancestors of `start` by the number of `after` hops (a direct parent is 1)."""
    if start is None or start not in design.by_id:
        return {}
    seen: dict[str, int] = {}
    queue = deque([(start, 0)])
    while queue:
        node, hops = queue.popleft()
        info = design.by_id.get(node)
        if info is None:
            continue
        for parent in parents_of(info.data):
            if isinstance(parent, str) and parent not in seen and parent != start:
                seen[parent] = hops + 1
                queue.append((parent, hops + 1))
    return seen


def readable_nodes(design: Design, info: NodeInfo) -> list[tuple[int, NodeInfo]]:
    """Nodes a condition may read, as (distance, node): direct parents (1) first, farther
    ancestors by hops, then unrelated nodes (99); never itself or one below it."""
    self_id = info.id
    hops = graph_distance(design, self_id)
    below = design.descendants_of(self_id) if self_id else set()
    out = []
    for other in design.infos:
        if other.id is None or other.id == self_id or not has_output(other.kind):
            continue
        if design.by_id.get(other.id) is not other or other.id in below:
            continue
        out.append((hops.get(other.id, 99), other))
    out.sort(key=lambda pair: (pair[0], -pair[1].index if pair[0] == 99 else pair[1].index))
    return out


def after_sorter(design: Design, info: NodeInfo | None,
                 listed: list[str]) -> Callable[[NodeInfo], str]:
    """The sort key of an id for `after`: with nothing listed yet, the step right above
    first, then upward by distance; with ids listed, their ancestors by hops first (a node
    often runs after a branch and what that branch read)."""
    here = info.index if info is not None else len(design.infos)
    hops: dict[str, int] = {}
    for ident in listed:
        for other, n in graph_distance(design, ident).items():
            hops[other] = min(n, hops.get(other, 99))

    delivers = info is not None and info.kind == OUTPUT and bool(listed)

    def key(candidate: NodeInfo) -> str:
        distance = here - candidate.index if candidate.index < here else 500 + candidate.index
        # an output delivers what its parents wrote: past the first, a condition's
        # true/false or the trigger is no content to deliver
        aside = int(delivers and (candidate.kind == CONDITION or not has_output(candidate.kind)))
        return f"{aside}{hops.get(candidate.id, 99):02d}{distance:05d}"
    return key
