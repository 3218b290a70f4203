"""The design as the editor features see it: nodes, ids, kinds, plan order, tree objects.

Built whole from a parsed document's `to_python()` and tree, tolerant of
junk (half-typed nodes, duplicate ids, non-dict entries).  Completion, hover,
navigation, symbols, fixes and hints share it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..jsontext.jsontree import JsonNode, Member, ParsedDocument
from ..rules.graph import (
    children_map,
    descendants,
    parents_of,
    stable_topological_order,
    usable_id,
)
from ..rules.plan import build_run_plan
from ..rules.vocabulary import NOTE, STEP_KINDS, TRIGGER


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

    def first_line(self) -> str | None:
        """The first line of its prompt, question, expression or text: what it is about."""
        for key in ("prompt", "question", "expression", "text"):
            value = self.data.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip().splitlines()[0][:200]
        return None


Candidate = tuple[int, str, str | None]
"""(index, id, kind) of a node."""


@dataclass(frozen=True, slots=True)
class Design:
    """Complete when made (`design_of`): a value any thread may read, nothing built later."""

    value: Any
    nodes: list[Any]
    """The raw `nodes` list (whatever it holds)."""
    tree_items: list[JsonNode]
    """The `nodes` array's items in the tree (fewer than `nodes` when the tree lost some)."""
    infos: list[NodeInfo]
    """One NodeInfo per node."""
    by_id: dict[str, NodeInfo]
    """First node with each usable id."""
    after_targets: list[Candidate]
    """(index, id, kind) of the nodes an `after` list may name, in node order: each
    usable id at its first node, notes left out."""
    children: dict[str, list[str]]
    """id -> the ids listing it in `after` (`graph.children_map`)."""

    def info_at(self, index: int | None) -> NodeInfo | None:
        """The NodeInfo of nodes[index]; None past the end."""
        if index is None or not 0 <= index < len(self.nodes):
            return None
        return self.infos[index]

    def descendants_of(self, node_id: str) -> set[str]:
        """The ids that run after `node_id` (`graph.descendants`)."""
        return descendants(self.nodes, node_id, self.children)

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
    """The design of `doc`, built whole.  The server builds it once per version and keeps
    it in that version's analysis (`server/documents.py`); every request passes it on."""
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
    infos, by_id = _node_infos(nodes, tree_items)
    return Design(value, nodes, tree_items, infos, by_id, _after_targets(nodes),
                  children_map(nodes))


def _after_targets(nodes: list[Any]) -> list[Candidate]:
    seen: set[str] = set()
    found: list[Candidate] = []
    for index, node in enumerate(nodes):
        if not isinstance(node, dict):
            continue
        ident = node.get("id")
        if not isinstance(ident, str) or not ident.strip() or ident in seen:
            continue
        seen.add(ident)  # the first node with an id is the one named, a note included
        kind = node.get("type")
        if kind != NOTE:
            found.append((index, ident, kind if isinstance(kind, str) else None))
    return found


def _node_info(index: int, node: Any, tree_items: list[JsonNode]) -> NodeInfo:
    data = node if isinstance(node, dict) else {}
    kind = data.get("type")
    obj = tree_items[index] if index < len(tree_items) else None
    return NodeInfo(index, usable_id(node), kind if isinstance(kind, str) else None, data,
                    obj if obj is not None and obj.kind == "object" else None)


def _node_infos(nodes: list[Any], tree_items: list[JsonNode]
                ) -> tuple[list[NodeInfo], dict[str, NodeInfo]]:
    """Every node's NodeInfo, and the first one with each usable id."""
    infos = [_node_info(index, node, tree_items) for index, node in enumerate(nodes)]
    by_id: dict[str, NodeInfo] = {}
    for info in infos:
        if info.id is not None:
            by_id.setdefault(info.id, info)
    return infos, by_id


def _best_effort_plan(infos: list[NodeInfo]) -> list[str]:
    """The engine's ordering over usable step ids, with steps on a cycle appended."""
    steps = [i for i in infos if i.id is not None and i.kind in STEP_KINDS]
    order = stable_topological_order(
        [info.id for info in steps],
        [[p for p in parents_of(info.data) if p != info.id] for info in steps])
    placed = set(order)
    order.extend(i for i in range(len(steps)) if i not in placed)
    return list(dict.fromkeys(steps[i].id for i in order))


def has_output(kind: str | None) -> bool:
    """Only steps produce outputs a condition can read."""
    return kind in STEP_KINDS


__all__ = ["Design", "NodeInfo", "design_of", "has_output", "TRIGGER"]
