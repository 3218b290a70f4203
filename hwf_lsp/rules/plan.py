"""From a design to a run plan: drop the trigger and notes, order the steps.

build_run_plan assumes a validated graph, but it is also reachable with hand-written
JSON, so it still refuses what would make a run ambiguous (duplicate or missing ids,
unknown kinds, unknown parents, cycles) with a PlanError naming the problem.
"""

from __future__ import annotations

from typing import Any

from .graph import find_cycle, stable_topological_order
from .vocabulary import KINDS, STEP_KINDS


class PlanError(ValueError):
    """The graph cannot be turned into a run plan; the message says why."""


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else type(value).__name__
    return repr(text if len(text) <= 40 else text[:40] + "…")


def build_run_plan(graph: Any) -> list[dict]:
    """The steps (agent, condition, approval, output) in a stable topological order.

    Kahn's algorithm; among the steps ready at the same time, the one earlier in
    `nodes` goes first, so an already-ordered design keeps its order.  Edges to the
    trigger or to notes are ignored for ordering.  Each step is a shallow copy of its
    node dict (the caller may add keys; nested values are shared, do not mutate them).
    """
    nodes = graph.get("nodes") if isinstance(graph, dict) else None
    if not isinstance(nodes, list):
        raise PlanError("a design must be an object with a 'nodes' list")
    kind_of, steps = _kinds_and_steps(nodes)
    parents = [_parents(step, kind_of) for step in steps]
    order = stable_topological_order([step["id"] for step in steps], parents)
    if len(order) < len(steps):
        placed = set(order)
        cycle = find_cycle(steps) or [s["id"] for i, s in enumerate(steps) if i not in placed]
        raise PlanError("the steps form a cycle: " + " → ".join(cycle))
    return [dict(steps[i]) for i in order]


def _kinds_and_steps(nodes: list[Any]) -> tuple[dict[str, str], list[dict]]:
    """Each id's kind, and the step nodes in order; PlanError on a node that is not an
    object or lacks a usable, unique id or a known kind."""
    kind_of: dict[str, str] = {}
    steps: list[dict] = []
    for index, node in enumerate(nodes):
        if not isinstance(node, dict):
            raise PlanError(f"node {index} is not an object")
        ident = node.get("id")
        if not isinstance(ident, str) or not ident.strip():
            raise PlanError(f"node {index} has no id")
        if ident in kind_of:
            raise PlanError(f"duplicate node id {_short(ident)} (node {index})")
        kind = node.get("type")
        if kind not in KINDS:
            raise PlanError(f"node {_short(ident)} has unknown type {_short(kind)}")
        kind_of[ident] = kind
        if kind in STEP_KINDS:
            steps.append(node)
    return kind_of, steps


def _parents(step: dict, kind_of: dict[str, str]) -> list[str]:
    """The ids `step` runs after; PlanError when `after` is no list, holds a non-string or
    names no node."""
    after = step.get("after", [])
    if after is None:
        after = []
    if not isinstance(after, list):
        raise PlanError(f"step {_short(step['id'])}: after must be a list")
    names = [p for p in after if isinstance(p, str)]
    for parent in names:
        if parent not in kind_of:
            raise PlanError(
                f"step {_short(step['id'])} runs after unknown node {_short(parent)}"
            )
    if len(names) < len(after):
        raise PlanError(f"step {_short(step['id'])}: after holds a non-string entry")
    return names
