"""What the debugger shows of a run: the stack (the stopped node above its upstream path),
the scopes (the node's input, the run's outputs, answers, the pending approval or agent)
and JSON values as DAP variables, each container behind a handle."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hwf_lsp.debug.node_lines import NodeLines, line_of
from hwf_lsp.debug.values import shown
from hwf_lsp.rules.conditions import ConditionError, evaluate, parse_condition, resolve_path
from hwf_lsp.rules.graph import ancestors, parents_of


def node_input(state: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    """What `node` will receive if it runs now, as the runner would hand it over."""
    outputs = state.get("outputs") or {}
    skipped = state.get("skipped") or []
    parents = {p: outputs[p] for p in parents_of(node) if p in outputs}
    kind = node.get("type")
    if kind == "agent":
        found = {"prompt": node.get("prompt", ""), "context": parents}
        found.update({k: node[k] for k in ("profile", "model") if k in node})
        return found
    if kind == "approval":
        return {"question": node.get("question", ""), "options": node.get("options"),
                "context": parents}
    if kind == "output":
        collects = {p: v for p, v in parents.items() if p not in skipped}
        found = {"collects": collects}
        found.update({k: node[k] for k in ("deliver", "target") if k in node})
        return found
    if kind == "condition":
        return _condition_input(node.get("expression"), outputs)
    return {"node": node}


def _condition_input(expression: Any, outputs: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = {"expression": expression}
    try:
        condition = parse_condition(expression if isinstance(expression, str) else "")
    except ConditionError as exc:
        found["error"] = exc.msg
        return found
    reference = ".".join(["out", condition.node, *map(str, condition.path)])
    ok, value = (resolve_path(outputs[condition.node], condition.path)
                 if condition.node in outputs else (False, None))
    found["reads"] = {reference: value if ok else "<no value>"}
    result, reason = evaluate(condition, outputs)
    found["result"] = result if reason is None else f"{result} ({reason})"
    return found


def upstream_path(design: dict[str, Any], node_id: str) -> list[str]:
    """`node_id`'s ancestors, nearest first (reverse design order), back to the trigger."""
    nodes = [n for n in design.get("nodes", []) if isinstance(n, dict)]
    order = {n.get("id"): index for index, n in enumerate(nodes)}
    above = ancestors(nodes, node_id)
    return sorted(above, key=lambda n: (nodes[order[n]].get("type") == "trigger",
                                        -order.get(n, 0)))


def stack_frames(design: dict[str, Any], node_id: str, lines: list[NodeLines],
                 source: dict[str, Any], line_base: int) -> list[dict[str, Any]]:
    """DAP StackFrames: the stopped node (id 1), then its upstream path."""
    kinds = {n.get("id"): n.get("type") for n in design.get("nodes", []) if isinstance(n, dict)}
    frames = []
    for index, ident in enumerate([node_id, *upstream_path(design, node_id)]):
        line = line_of(lines, ident)
        frames.append({"id": index + 1, "name": f"{ident} ({kinds.get(ident)})",
                       "source": source, "line": (line or 0) + line_base,
                       "column": line_base,
                       **({"presentationHint": "subtle"} if index else {})})
    return frames


@dataclass(frozen=True)
class Container:
    """A value behind a variables handle; `node`/`path` when it is (part of) an output."""

    value: Any
    node: str | None = None
    path: tuple[str | int, ...] = ()
    outputs_root: bool = False


class VariableTable:
    """Handles for the containers shown since the last stop (reset at every stop)."""

    def __init__(self) -> None:
        self.handles: dict[int, Container] = {}

    def reset(self) -> None:
        self.handles.clear()

    def handle(self, container: Container) -> int:
        ident = len(self.handles) + 1
        self.handles[ident] = container
        return ident

    def get(self, ident: Any) -> Container | None:
        return self.handles.get(ident) if isinstance(ident, int) else None

    def variable(self, name: str, value: Any, parent: Container) -> dict[str, Any]:
        """One DAP Variable, a child of `parent`."""
        node, path = _child_place(parent, name)
        return {"name": name, **self.describe(value, node, path)}

    def describe(self, value: Any, node: str | None = None,
                 path: tuple[str | int, ...] = ()) -> dict[str, Any]:
        """A value as DAP shows it; an object or list gets a handle to expand it, and (part
        of) an output its `out.node.path` as `evaluateName`."""
        found: dict[str, Any] = {"value": _summary(value), "type": _type(value),
                                 "variablesReference": 0}
        if node is not None:
            found["evaluateName"] = ".".join(["out", node, *map(str, path)])
        if isinstance(value, dict | list) and value:
            found["variablesReference"] = self.handle(Container(value, node, path))
        return found

    def children(self, container: Container) -> list[dict[str, Any]]:
        value = container.value
        items = value.items() if isinstance(value, dict) else enumerate(value) \
            if isinstance(value, list) else ()
        return [self.variable(str(key), child, container) for key, child in items]


def _child_place(parent: Container, name: str) -> tuple[str | None, tuple[str | int, ...]]:
    if parent.outputs_root:
        return name, ()
    if parent.node is None:
        return None, ()
    key: str | int = int(name) if isinstance(parent.value, list) else name
    return parent.node, (*parent.path, key)


def _summary(value: Any) -> str:
    if isinstance(value, dict):
        return f"{{…}} {len(value)} key{'s' if len(value) != 1 else ''}" if value else "{}"
    if isinstance(value, list):
        return f"[…] {len(value)} item{'s' if len(value) != 1 else ''}" if value else "[]"
    return shown(value) if not isinstance(value, str) else _quoted(value)


def _quoted(text: str) -> str:
    return shown(json.dumps(text, ensure_ascii=False))


def _type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    return {dict: "object", list: "array", str: "string"}.get(type(value), type(value).__name__)
