"""The rulebook verdict of a graph that differs from the last one in one node, fast.

On a keystroke inside one node the editor builds the new graph copy-on-write: its
`nodes` list holds the previous node dicts (same objects) except at the edited
index.  `recheck_graph` then rechecks only the nodes whose verdict can have changed
and reuses the other nodes' defect lists (same list and Defect objects, so callers
can memo by identity).  The answer always equals `collect_defects(graph)`: the
precondition is verified (by identity) and anything unexpected falls back to
`check_graph`.

Contract: node dicts (and their `after` lists) are not mutated in place once checked,
except the one passed as `changed`.  Defect lists handed out are shared: read only.

What a node's verdict reads of other nodes (validator.GraphContext) is a function of
every node's *signature*: (usable id, role of its type, string entries of `after`),
where the role is "note", "trigger" or other (checks only ever ask that of a type).
Same signature: the context is unchanged and only the edited node is rechecked.
Otherwise the context is updated for the (at most two) ids the node had and has,
and the nodes reading those ids, the triggers (if the first changed) and the old and
new acyclic-defect carriers are rechecked.  Acyclicity is kept with topological
ranks: a single-node change adds edges only at the node's new id, so the graph stays
acyclic when that id's parents all rank below some value below all its children.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from itertools import chain
from operator import is_
from typing import Any

from .conditions import ConditionError, parse_condition
from .defects import Defect
from .graph import cycle_or_ranks, dfs_cycle, usable_id
from .validator import (
    GraphContext,
    graph_defects,
    node_defects,
    shape_defect,
    trigger_indexes,
)
from .vocabulary import CONDITION, NOTE, TRIGGER

Signature = tuple[str | None, str | None, tuple[str, ...]] | None
"""(usable id, role of type, string `after` entries); None for a node that is not a dict."""


@dataclass(slots=True)
class CheckedGraph:
    """The verdict of one graph plus what a recheck of its successor reuses."""

    graph: Any
    defects: list[Defect]
    """Equal to collect_defects(graph)."""
    _nodes: tuple = ()
    """The node objects checked (a snapshot: the caller may reuse its list)."""
    _context: GraphContext | None = None
    """None when the shape check failed (then a recheck is a full check)."""
    _head: list[Defect] | None = None
    _per_node: list[list[Defect]] | None = None
    _signatures: list[Signature] | None = None
    _reads: list[frozenset[str]] | None = None
    """Ids whose kind_of each node's checks read: `after` strings and a condition's target."""
    _holders: dict[str, list[int]] | None = None
    """Usable id -> ascending indexes of the nodes carrying it."""
    _readers: dict[str, list[int]] | None = None
    """Id -> indexes of the nodes whose `_reads` contain it."""
    _ranks: dict[str, float] | None = None
    """Topological ranks of the ids (parents below children); None when there is a cycle."""


def check_graph(graph: Any) -> CheckedGraph:
    """The full check; `.defects == collect_defects(graph)`."""
    shape = shape_defect(graph)
    if shape is not None:
        return CheckedGraph(graph, [shape])
    nodes = tuple(graph["nodes"])
    signatures = [_signature(node) for node in nodes]
    reads = [_reads(node) for node in nodes]
    first_index: dict[str, int] = {}
    kind_of: dict[str, Any] = {}
    triggers: list[int] = []
    holders: dict[str, list[int]] = {}
    readers: dict[str, list[int]] = {}
    for index, signature in enumerate(signatures):  # validator.first_uses, trigger_indexes
        if signature is not None:
            ident = signature[0]
            if ident is not None:
                if ident not in first_index:
                    first_index[ident] = index
                    kind_of[ident] = nodes[index].get("type")
                    holders[ident] = [index]
                else:
                    holders[ident].append(index)
            if signature[1] == TRIGGER:
                triggers.append(index)
        for ident in reads[index]:
            readers.setdefault(ident, []).append(index)
    cycle, ranks = cycle_or_ranks(_parent_map(signatures), include_self_loops=False)
    context = GraphContext(first_index, kind_of, triggers, cycle)
    head = graph_defects(context)
    per_node = [node_defects(node, index, context) for index, node in enumerate(nodes)]
    return CheckedGraph(graph, _join(head, per_node), nodes, context, head, per_node,
                        signatures, reads, holders, readers, ranks)


def recheck_graph(prev: CheckedGraph, graph: Any, changed: int | None) -> CheckedGraph:
    """collect_defects(graph), reusing `prev` where `graph` differs from prev.graph at one node.

    `changed`: the index whose node was replaced (None: only top-level keys other
    than `nodes` changed).  The nodes are compared with prev's by identity: node
    `changed` is always rechecked (so it may even have been edited in place); with
    changed=None a single replaced node is found and rechecked; anything else
    (another node replaced too, another length, a shape defect) is checked in full.
    """
    old_nodes = prev._nodes
    if prev._context is None or not isinstance(graph, dict):
        return check_graph(graph)
    nodes = graph.get("nodes")
    if not isinstance(nodes, list) or len(nodes) != len(old_nodes) or not nodes:
        return check_graph(graph)  # also covers every shape defect of a same-length list
    index = _the_changed_index(old_nodes, nodes, changed)
    if index == -1:
        return check_graph(graph)
    if index is None:
        return CheckedGraph(graph, prev.defects, old_nodes, prev._context, prev._head,
                            prev._per_node, prev._signatures, prev._reads, prev._holders,
                            prev._readers, prev._ranks)
    return _Recheck(prev, graph, tuple(nodes), index).run()


def _the_changed_index(old: tuple, new: list, hint: int | None) -> int | None:
    """The one index to recheck, None when there is none, -1 when a full check is needed.

    With a `hint` every other index must hold the same object as in `old`: node
    `hint` may have been edited in place, so it is rechecked even when it is the
    same object, and a second changed node would make two.  Without one, the
    single index holding another object, if any.
    """
    if hint is not None and 0 <= hint < len(new):
        same = all(map(is_, old[:hint], new[:hint])) and all(map(is_, old[hint + 1:],
                                                                 new[hint + 1:]))
        return hint if same else -1
    differ = [i for i, same in enumerate(map(is_, old, new)) if not same]
    if len(differ) > 1:
        return -1
    return differ[0] if differ else None


class _Recheck:
    """One incremental recheck: copies what it changes, never touches `prev`."""

    def __init__(self, prev: CheckedGraph, graph: dict, nodes: tuple, index: int) -> None:
        self.prev = prev
        self.graph = graph
        self.nodes = nodes
        self.index = index
        self.signatures: list[Signature] = prev._signatures

    def run(self) -> CheckedGraph:
        prev, nodes, k = self.prev, self.nodes, self.index
        node = nodes[k]
        per_node = list(prev._per_node)
        reads = prev._reads
        readers = prev._readers
        new_reads = _reads(node)
        if new_reads != reads[k]:
            readers = _move(readers, k, reads[k], new_reads)
            reads = list(reads)
            reads[k] = new_reads
        signature = _signature(node)
        old_signature = prev._signatures[k]
        context = prev._context
        head = prev._head
        holders = prev._holders
        ranks = prev._ranks
        signatures = prev._signatures
        if signature != old_signature:
            signatures = self.signatures = list(signatures)
            signatures[k] = signature
            context, holders, ranks, recheck = self._new_context(
                old_signature, signature, holders, readers)
            new_head = graph_defects(context)
            if new_head != head:
                head = new_head
            for j in recheck:
                if j != k:
                    found = node_defects(nodes[j], j, context)
                    if found != per_node[j]:
                        per_node[j] = found
        found = node_defects(node, k, context)
        if found != per_node[k]:
            per_node[k] = found
        return CheckedGraph(self.graph, _join(head, per_node), nodes, context, head, per_node,
                            signatures, reads, holders, readers, ranks)

    def _new_context(self, old: Signature, new: Signature, holders: dict[str, list[int]],
                     readers: dict[str, list[int]],
                     ) -> tuple[GraphContext, dict[str, list[int]], dict | None, set[int]]:
        """The context after node k's signature changed from `old` to `new`, and who to recheck."""
        prev, nodes, k = self.prev, self.nodes, self.index
        before = prev._context
        old_id = old[0] if old is not None else None
        new_id = new[0] if new is not None else None
        recheck: set[int] = set()
        first_index, kind_of = before.first_index, before.kind_of
        if old_id != new_id:
            holders = dict(holders)
            if old_id is not None:
                rest = [i for i in holders[old_id] if i != k]
                if rest:
                    holders[old_id] = rest
                else:
                    del holders[old_id]  # no stale keys: an id typed letter by letter
            if new_id is not None:
                holders[new_id] = mine = list(holders.get(new_id, ()))
                bisect.insort(mine, k)
        ids = {i for i in (old_id, new_id) if i is not None}
        if ids:
            first_index, kind_of = dict(first_index), dict(kind_of)
            for ident in ids:
                carriers = holders.get(ident)
                was = before.first_index.get(ident)
                was_role = _role(before.kind_of[ident]) if was is not None else None
                if carriers:
                    first_index[ident] = carriers[0]
                    kind_of[ident] = nodes[carriers[0]].get("type")
                else:
                    first_index.pop(ident, None)
                    kind_of.pop(ident, None)
                now = first_index.get(ident)
                if now != was:  # their identity verdicts name the first carrier (k: always)
                    recheck.update(carriers or ())
                if now != was or (now is not None and _role(kind_of[ident]) != was_role):
                    recheck.update(readers.get(ident, ()))
        triggers = before.triggers
        if (old is not None and old[1] == TRIGGER) != (new is not None and new[1] == TRIGGER):
            triggers = trigger_indexes(nodes)
            if triggers[:1] != before.triggers[:1]:
                recheck.update(triggers)
        cycle, ranks = before.cycle, prev._ranks
        if (old_id, old[2] if old else ()) != (new_id, new[2] if new else ()):
            cycle, ranks = self._new_cycle(new_id, first_index, holders, readers)
            if ranks is not None and old_id in ranks and old_id not in first_index:
                ranks = dict(ranks) if ranks is prev._ranks else ranks
                del ranks[old_id]
        context = GraphContext(first_index, kind_of, triggers, cycle)
        if (context.cycle, context.cycle_index) != (before.cycle, before.cycle_index):
            recheck.update(i for i in (context.cycle_index, before.cycle_index) if i is not None)
        return context, holders, ranks, recheck

    def _new_cycle(self, new_id: str | None, first_index: dict[str, int],
                   holders: dict[str, list[int]], readers: dict[str, list[int]],
                   ) -> tuple[list[str] | None, dict | None]:
        """(cycle, ranks) after node k's id or `after` changed."""
        ranks = self.prev._ranks
        if ranks is not None:
            if new_id is None:
                return None, ranks  # k left the graph's edges: only edges went away
            rank = self._rank_for(new_id, ranks, first_index, holders, readers)
            if rank is not None:
                if ranks.get(new_id) != rank:
                    ranks = dict(ranks)
                    ranks[new_id] = rank
                return None, ranks
            cycle = self._cycle_through(new_id, first_index, holders, readers)
            if cycle is not None:
                return cycle, None
        return cycle_or_ranks(_parent_map(self.signatures), include_self_loops=False)

    def _cycle_through(self, ident: str, first_index: dict[str, int],
                       holders: dict[str, list[int]], readers: dict[str, list[int]],
                       ) -> list[str] | None:
        """find_cycle's answer for a graph whose every cycle passes through `ident`.

        Its DFS finds nothing from roots that do not run after `ident` (they reach no
        cycle), and never enters them from one that does (what runs before them does
        not run after `ident` either); so a DFS over `ident` and the ids running after
        it, in node order, finds the same cycle as one over the whole graph.
        """
        signatures = self.signatures
        reach = {ident}
        stack = [ident]
        while stack:
            current = stack.pop()
            for j in readers.get(current, ()):
                signature = signatures[j]
                child = signature[0] if signature is not None else None
                if child is not None and child not in reach and current in signature[2]:
                    reach.add(child)
                    stack.append(child)
        parents: dict[str, list[str]] = {}
        for child in sorted(reach, key=first_index.__getitem__):
            mine: list[str] = []
            for j in holders[child]:
                for parent in signatures[j][2]:
                    if parent in reach and parent not in mine:
                        mine.append(parent)
            parents[child] = mine
        return dfs_cycle(parents, include_self_loops=False)

    def _rank_for(self, ident: str, ranks: dict[str, float], first_index: dict[str, int],
                  holders: dict[str, list[int]], readers: dict[str, list[int]],
                  ) -> float | None:
        """A rank for `ident` above all its parents and below all its children, if any.

        Every edge a one-node change adds touches the node's new id, and every other
        id kept its rank, so such a rank proves the new graph acyclic.
        """
        signatures = self.signatures
        low = float("-inf")
        for j in holders[ident]:
            for parent in signatures[j][2]:
                if parent != ident and parent in first_index:
                    low = max(low, ranks[parent])
        high = float("inf")
        for j in readers.get(ident, ()):
            signature = signatures[j]
            child = signature[0] if signature is not None else None
            if child is not None and child != ident and ident in signature[2]:
                high = min(high, ranks[child])
        for candidate in (ranks.get(ident), self._old_rank()):
            if candidate is not None and low < candidate < high:
                return candidate
        if low == float("-inf"):
            candidate = 0.0 if high == float("inf") else high - 1
        else:
            candidate = low + 1 if high == float("inf") else (low + high) / 2
        return candidate if low < candidate < high else None

    def _old_rank(self) -> float | None:
        old = self.prev._signatures[self.index]
        return self.prev._ranks.get(old[0]) if old is not None and old[0] is not None else None


def _role(kind: Any) -> str | None:
    """All that checks of other nodes ask of a type: note, trigger or something else."""
    return kind if isinstance(kind, str) and kind in (NOTE, TRIGGER) else None


def _signature(node: Any) -> Signature:
    if not isinstance(node, dict):
        return None
    after = node.get("after")
    parents = tuple(p for p in after if isinstance(p, str)) if isinstance(after, list) else ()
    return usable_id(node), _role(node.get("type")), parents


def _reads(node: Any) -> frozenset[str]:
    """Ids whose kind_of the node's checks read (a superset is fine, a subset is not)."""
    if not isinstance(node, dict):
        return frozenset()
    after = node.get("after")
    found = {p for p in after if isinstance(p, str)} if isinstance(after, list) else set()
    expression = node.get("expression")
    if node.get("type") == CONDITION and isinstance(expression, str) and expression.strip():
        try:
            found.add(parse_condition(expression).node)
        except ConditionError:
            pass
    return frozenset(found)


def _parent_map(signatures: list[Signature]) -> dict[str, list[str]]:
    """graph.parent_map(nodes), from the nodes' signatures (their ids and `after` strings)."""
    parents: dict[str, list[str]] = {}
    for signature in signatures:
        if signature is not None and signature[0] is not None:
            parents.setdefault(signature[0], [])
    for signature in signatures:
        if signature is not None and signature[0] is not None and signature[2]:
            mine = parents[signature[0]]
            for parent in signature[2]:
                if parent in parents and parent not in mine:
                    mine.append(parent)
    return parents


def _move(readers: dict[str, list[int]], index: int, old: frozenset[str],
          new: frozenset[str]) -> dict[str, list[int]]:
    """`readers` (copied) with `index` moved from the ids of `old` to those of `new`."""
    readers = dict(readers)
    for ident in old - new:
        rest = [i for i in readers[ident] if i != index]
        if rest:
            readers[ident] = rest
        else:
            del readers[ident]
    for ident in new - old:
        readers[ident] = [*readers.get(ident, ()), index]
    return readers


def _join(head: list[Defect], per_node: list[list[Defect]]) -> list[Defect]:
    return [*head, *chain.from_iterable(per_node)]
