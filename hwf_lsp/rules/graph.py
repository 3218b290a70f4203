"""Edges of a design: parents, children, ancestors, descendants, cycles, topological order.

Every helper but `stable_topological_order` (shared by the engine's plan and the
editor's best-effort plan) takes the raw `nodes` list and tolerates junk (non-dict
nodes, ids that are not non-blank strings, an `after` that is not a list), because
the editor calls them on half-typed designs.  All walks are iterative: no recursion
on graph size.  Nodes sharing an id are treated as one node whose parents are the union.
"""

from __future__ import annotations

import heapq
from collections.abc import Hashable, Iterable, Sequence
from typing import Any


def usable_id(node: Any) -> str | None:
    """The node's id when usable: a string that is not blank; else None."""
    if isinstance(node, dict):
        value = node.get("id")
        if isinstance(value, str) and value.strip():
            return value
    return None


def parents_of(node: Any) -> list[str]:
    """String entries of the node's `after` list, in order, each once."""
    after = node.get("after") if isinstance(node, dict) else None
    if not isinstance(after, list):
        return []
    return list(dict.fromkeys(p for p in after if isinstance(p, str)))


def parent_map(nodes: Any) -> dict[str, list[str]]:
    """id -> parents that are ids of real nodes, in node order (merged over duplicate ids).

    One pass for the ids, one over the `after` lists: it runs on every keystroke, so it
    avoids the per-node helper calls of `parents_of` (same result, same order).
    """
    ids, edges, _ = _ids_and_edges(nodes)
    parents: dict[str, list[str]] = {ident: [] for ident in ids}
    for ident, after in edges:
        mine = parents[ident]
        for parent in after:
            if isinstance(parent, str) and parent in parents and parent not in mine:
                mine.append(parent)
    return parents


def children_map(nodes: Any) -> dict[str, list[str]]:
    """id -> ids of the nodes listing it in `after`, in node order (every id is a key).

    When no two nodes share an id (the usual design), one pass over the `after` lists in
    node order gives exactly that; `after` completion asks on every keystroke of a
    5,000-node design.  Shared ids merge their nodes' parents first (`parent_map`)."""
    ids, edges, shared = _ids_and_edges(nodes)
    children: dict[str, list[str]] = {ident: [] for ident in ids}
    if shared:
        for child, its_parents in parent_map(nodes).items():
            for parent in its_parents:
                children[parent].append(child)
        return children
    for child, after in edges:
        for parent in after:
            if isinstance(parent, str) and parent in children:
                listed = children[parent]
                if not listed or listed[-1] != child:  # `after` naming it twice
                    listed.append(child)
    return children


def _ids_and_edges(nodes: Any) -> tuple[dict[str, None], list[tuple[str, list]], bool]:
    """The usable ids in node order, (id, non-empty `after` list) per node that has both,
    and whether two nodes share an id."""
    ids: dict[str, None] = {}
    edges: list[tuple[str, list]] = []
    usable = 0
    for node in nodes if isinstance(nodes, list) else ():
        if not isinstance(node, dict):
            continue
        ident = node.get("id")
        if not isinstance(ident, str) or not ident.strip():
            continue
        usable += 1
        ids[ident] = None
        after = node.get("after")
        if isinstance(after, list) and after:
            edges.append((ident, after))
    return ids, edges, usable != len(ids)


def _reachable(start: str, edges: dict[str, list[str]]) -> set[str]:
    seen: set[str] = set()
    stack = list(edges.get(start, ()))
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        stack.extend(edges.get(current, ()))
    return seen


def ancestors(nodes: Any, node_id: str, parents: dict[str, list[str]] | None = None) -> set[str]:
    """Every node `node_id` transitively runs after (itself only when on a cycle).

    `parents`: `parent_map(nodes)` when the caller asks for many nodes (built once).
    """
    return _reachable(node_id, parent_map(nodes) if parents is None else parents)


def runs_after(parents: Any, node_id: str, ancestor: str) -> bool:
    """`ancestor in ancestors(nodes, node_id, parents)`, stopping as soon as it is found
    (a condition mostly reads its own parent: one step, not the whole upstream).

    `parents`: `parent_map(nodes)`, or anything whose `.get(id, ())` answers the same."""
    queue = list(parents.get(node_id, ()))
    seen = set(queue)
    for current in queue:  # breadth first: nearest parents first; the list grows as it goes
        if current == ancestor:
            return True
        for parent in parents.get(current, ()):
            if parent not in seen:
                seen.add(parent)
                queue.append(parent)
    return False


def descendants(nodes: Any, node_id: str,
                children: dict[str, list[str]] | None = None) -> set[str]:
    """Every node that transitively runs after `node_id` (itself only when on a cycle).
    `children`, when given, is `children_map(nodes)` (built once by a caller that asks often)."""
    return _reachable(node_id, children if children is not None else children_map(nodes))


def find_cycle(nodes: Any, *, include_self_loops: bool = True,
               parents: dict[str, list[str]] | None = None) -> list[str] | None:
    """A cycle of `after` edges as a path in run order, e.g. [a, b, c, a], or None.

    In [a, b, c, a], b lists a in its `after`, c lists b, a lists c.  The DFS visits
    nodes in node order, so the result is deterministic; the path is rotated to
    start at the cycle's node that comes first in `nodes`.  With
    include_self_loops=False a node listing itself is ignored (the validator
    reports that as a bad edge instead).  `parents`: `parent_map(nodes)` if the caller has it.
    """
    if parents is None:
        parents = parent_map(nodes)
    if _in_run_order(parents, include_self_loops):
        return None  # the common case: nodes listed in run order, decided in one pass
    return _depth_first(parents, include_self_loops)


def _in_run_order(parents: dict[str, list[str]], include_self_loops: bool) -> bool:
    """Whether every parent is a key that comes before its child's (a topological order)."""
    ranks = {ident: rank for rank, ident in enumerate(parents)}
    for rank, (ident, its_parents) in enumerate(parents.items()):
        for parent in its_parents:
            parent_rank = ranks.get(parent)
            if parent_rank is None or (parent_rank >= rank and (include_self_loops
                                                                 or parent != ident)):
                return False
    return True


def _depth_first(parents: dict[str, list[str]], include_self_loops: bool) -> list[str] | None:
    """The first cycle a DFS meets (roots and parents in the map's order), rotated to start
    at its id that comes first in the map; None when there is none."""
    order = {ident: i for i, ident in enumerate(parents)}
    state: dict[str, int] = {}  # 1 = on the DFS stack, 2 = done
    for root in parents:
        if root in state:
            continue
        stack: list[tuple[str, int]] = [(root, 0)]
        on_path: list[str] = [root]
        state[root] = 1
        while stack:
            current, next_edge = stack[-1]
            edges = parents[current]
            if next_edge == len(edges):
                stack.pop()
                on_path.pop()
                state[current] = 2
                continue
            stack[-1] = (current, next_edge + 1)
            parent = edges[next_edge]
            if parent == current and not include_self_loops:
                continue
            if state.get(parent) == 1:
                loop = on_path[on_path.index(parent):]  # follows after-edges child -> parent
                loop.reverse()  # run order: parent before child
                first = min(range(len(loop)), key=lambda i: order[loop[i]])
                loop = loop[first:] + loop[:first]
                return loop + [loop[0]]
            if parent not in state:
                state[parent] = 1
                stack.append((parent, 0))
                on_path.append(parent)
    return None


def would_create_cycle(nodes: Any, node_id: str, new_parent: str) -> bool:
    """Whether adding `new_parent` to `node_id`'s `after` would close a cycle."""
    if new_parent == node_id:
        return True
    return new_parent in descendants(nodes, node_id)


def stable_topological_order(ids: Sequence[Hashable],
                             parents: Sequence[Iterable[Hashable]]) -> list[int]:
    """Positions of `ids` in a stable topological order (Kahn's algorithm).

    `parents[i]` are the ids position i runs after; ids not in `ids` are ignored and an
    id listed twice stands for its first position.  Among the positions ready at the
    same time the earlier goes first, so an already-ordered list keeps its order.
    Positions on or after a cycle are left out: the engine refuses them, the editor
    appends them, so the caller decides.
    """
    position: dict[Hashable, int] = {}
    for i, ident in enumerate(ids):
        position.setdefault(ident, i)
    waiting = [0] * len(ids)
    children: list[list[int]] = [[] for _ in ids]
    for i, its_parents in enumerate(parents):
        for parent in dict.fromkeys(its_parents):
            j = position.get(parent)
            if j is not None:
                waiting[i] += 1
                children[j].append(i)
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
    return order
