"""Breakpoints on node lines: a DAP source breakpoint is verified when its line is inside
the object of a step (it stops *before* that step runs), else unverified with a message
saying why.  A condition is the condition grammar (`out.review.score < 7`), parsed and
evaluated by the engine's one parser (`workflow/conditions.py`), never as code; a
logpoint prints its message and does not stop."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hwf_lsp.debug.node_lines import NodeLines, node_at_line
from hwf_lsp.debug.values import interpolate
from hwf_lsp.rules.conditions import Condition, ConditionError, evaluate, parse_condition
from hwf_lsp.rules.vocabulary import STEP_KINDS


@dataclass(frozen=True)
class NodeBreakpoint:
    id: int
    node: str
    condition: Condition | None = None
    log_message: str | None = None


@dataclass
class Hit:
    """What the breakpoints of one node decided: stop (which ids) and lines to log."""

    stop_ids: list[int]
    logs: list[str]


def why_not(node: NodeLines | None, line: int) -> str | None:
    """Why a breakpoint on `line` (as the user counts) cannot stop anywhere; None if it can."""
    if node is None:
        return (f"line {line} is not inside a node's object: a breakpoint stops before "
                "the node whose object holds its line")
    if node.id is None:
        return f"the node on line {line} has no usable id: it cannot run"
    if node.kind not in STEP_KINDS:
        return (f"{node.id!r} is a {node.kind or 'node without a type'}: it never runs, so "
                "nothing stops there; put the breakpoint on a step")
    return None


def verify(requested: list[Any], nodes: list[NodeLines], line_base: int, next_id: int
           ) -> tuple[list[dict[str, Any]], list[NodeBreakpoint]]:
    """DAP `Breakpoint`s for the requested `SourceBreakpoint`s (same order), and the
    verified ones by node.  `line_base`: 1 when the client counts lines from 1."""
    shown: list[dict[str, Any]] = []
    kept: list[NodeBreakpoint] = []
    for offset, source in enumerate(requested):
        ident = next_id + offset
        line = source.get("line") if isinstance(source, dict) else None
        if not isinstance(line, int) or isinstance(line, bool):
            shown.append({"id": ident, "verified": False, "message": "a breakpoint needs a line"})
            continue
        node = node_at_line(nodes, line - line_base)
        message = why_not(node, line)
        condition, problem = _condition(source.get("condition"))
        message = message or problem
        entry: dict[str, Any] = {"id": ident, "verified": message is None, "line": line}
        if message is not None:
            entry["message"] = message
        else:
            log_message = source.get("logMessage")
            kept.append(NodeBreakpoint(ident, str(node.id), condition,
                                       log_message if isinstance(log_message, str) else None))
            entry["message"] = f"stops before {node.id!r} runs"
        shown.append(entry)
    return shown, kept


def verify_names(requested: list[Any], plan_ids: list[str] | None, design_name: str,
                 next_id: int) -> tuple[list[dict[str, Any]], list[NodeBreakpoint]]:
    """DAP `Breakpoint`s for `FunctionBreakpoint`s, whose `name` is a step id (what a
    canvas knows of a node), and the verified ones.  `plan_ids` None: nothing launched."""
    shown: list[dict[str, Any]] = []
    kept: list[NodeBreakpoint] = []
    for offset, given in enumerate(requested):
        ident = next_id + offset
        name = given.get("name") if isinstance(given, dict) else None
        condition, message = _condition(given.get("condition") if isinstance(given, dict)
                                        else None)
        if plan_ids is None:
            message = "launch the design first: a node breakpoint names a step of it"
        elif name not in plan_ids:
            message = (f"{name!r} is not a step of design {design_name!r} (steps: "
                       f"{', '.join(plan_ids)})")
        entry: dict[str, Any] = {"id": ident, "verified": message is None}
        if message is None:
            kept.append(NodeBreakpoint(ident, str(name), condition))
            entry["message"] = f"stops before {name!r} runs"
        else:
            entry["message"] = message
        shown.append(entry)
    return shown, kept


def _condition(text: Any) -> tuple[Condition | None, str | None]:
    if not isinstance(text, str) or not text.strip():
        return None, None
    try:
        return parse_condition(text), None
    except ConditionError as exc:
        return None, (f"condition {text!r} is not valid: {exc.msg} (character "
                      f"{exc.start + 1}); the grammar is out.<node>.<path> <op> <literal>")


def decide(breakpoints: list[NodeBreakpoint], node_id: str, outputs: dict[str, Any]) -> Hit:
    """The breakpoints on `node_id` whose condition holds: logpoints log, others stop."""
    hit = Hit([], [])
    for bp in breakpoints:
        if bp.node != node_id:
            continue
        if bp.condition is not None and not evaluate(bp.condition, outputs)[0]:
            continue
        if bp.log_message is not None:
            hit.logs.append(interpolate(bp.log_message, outputs))
        else:
            hit.stop_ids.append(bp.id)
    return hit
