"""The design as the editor features see it: nodes, ids, kinds, plan order, tree objects.

Built once per parsed document from `to_python()` and the tree, tolerant of
junk (half-typed nodes, duplicate ids, non-dict entries).  Completion, hover,
navigation, symbols, fixes and hints share it.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Any

from ..workflow.graph import usable_id
from ..workflow.plan import build_run_plan
from ..workflow.vocabulary import KINDS, NOTE, STEP_KINDS, TRIGGER
from .jsontree import JsonNode, Member, ParsedDocument


@dataclass(slots=True)
class NodeInfo:
    index: int
    id: str | None
    kind: str | None
    data: dict[str, Any]
    obj: JsonNode | None
    """The node's object in the tree (None when the tree has no object there)."""

    def member(self, key: str) -> Member | None:
        """The member that counts (the last one with that key)."""
        if self.obj is None or not self.obj.members:
            return None
        for member in reversed(self.obj.members):
            if member.key == key:
                return member
        return None

    @property
    def title(self) -> str | None:
        title = self.data.get("title")
        return title if isinstance(title, str) else None


@dataclass(slots=True)
class Design:
    value: Any
    nodes: list[Any]
    """The raw `nodes` list (whatever it holds)."""
    infos: list[NodeInfo] = field(default_factory=list)
    by_id: dict[str, NodeInfo] = field(default_factory=dict)
    """First node with each usable id."""

    @property
    def name(self) -> str | None:
        name = self.value.get("name") if isinstance(self.value, dict) else None
        return name if isinstance(name, str) else None

    def kind_of(self, node_id: str) -> str | None:
        info = self.by_id.get(node_id)
        return info.kind if info else None

    def plan_order(self) -> list[str]:
        """Step ids in run-plan order (the engine's plan; a best effort on broken designs)."""
        try:
            return [step["id"] for step in build_run_plan(self.value)]
        except Exception:  # noqa: BLE001 - hand-written, half-typed: fall back
            return _best_effort_plan(self.infos)


def design_of(doc: ParsedDocument) -> Design:
    value = doc.to_python()
    nodes = value.get("nodes") if isinstance(value, dict) else None
    if not isinstance(nodes, list):
        nodes = []
    tree_items: list[JsonNode] = []
    root = doc.root
    if root is not None and root.members:
        for member in reversed(root.members):
            if member.key == "nodes":
                if member.value is not None and member.value.items is not None:
                    tree_items = member.value.items
                break
    design = Design(value=value, nodes=nodes)
    for index, node in enumerate(nodes):
        data = node if isinstance(node, dict) else {}
        kind = data.get("type")
        obj = tree_items[index] if index < len(tree_items) else None
        info = NodeInfo(index, usable_id(node), kind if isinstance(kind, str) else None, data,
                        obj if obj is not None and obj.kind == "object" else None)
        design.infos.append(info)
        if info.id is not None:
            design.by_id.setdefault(info.id, info)
    return design


def _best_effort_plan(infos: list[NodeInfo]) -> list[str]:
    """Kahn's algorithm over usable step ids, ties by document order; cycles appended."""
    steps = [i for i in infos if i.id is not None and i.kind in STEP_KINDS]
    position: dict[str, int] = {}
    for i, info in enumerate(steps):
        position.setdefault(info.id, i)
    waiting = [0] * len(steps)
    children: list[list[int]] = [[] for _ in steps]
    for i, info in enumerate(steps):
        after = info.data.get("after")
        for parent in dict.fromkeys(p for p in after if isinstance(p, str)) if isinstance(
                after, list) else ():
            if parent in position and parent != info.id:
                waiting[i] += 1
                children[position[parent]].append(i)
    ready = [i for i, count in enumerate(waiting) if count == 0]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        current = heapq.heappop(ready)
        order.append(current)
        for child in children[current]:
            waiting[child] -= 1
            if waiting[child] == 0:
                heapq.heappush(ready, child)
    placed = set(order)
    order.extend(i for i in range(len(steps)) if i not in placed)
    seen: set[str] = set()
    ids: list[str] = []
    for i in order:
        ident = steps[i].id
        if ident not in seen:
            seen.add(ident)
            ids.append(ident)
    return ids


def has_output(kind: str | None) -> bool:
    """Only steps produce outputs a condition can read."""
    return kind in STEP_KINDS


def is_known_kind(kind: Any) -> bool:
    return kind in KINDS


def never_in_after(kind: str | None) -> bool:
    return kind == NOTE


__all__ = ["Design", "NodeInfo", "design_of", "has_output", "TRIGGER"]
