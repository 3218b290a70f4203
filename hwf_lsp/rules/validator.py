"""The rulebook: one pure function that says whether a design graph is legal.

Only graph-shape failures short-circuit; every other rule accumulates so the editor
can show every problem at once.  Pure: no I/O, never mutates its input, and never
raises for anything json.loads can return -- it only looks at top-level node fields
and the elements of list fields, never deeper, so nesting depth cannot hurt it.

Defects come graph-level first, then in node order, and within a node in field
order (id, type, after, title, then the kind's own fields as vocabulary lists them).

Decisions beyond the spec's table (docs/decisions.md): an optional field that is present
is checked even when it is null (null is not "absent"); a condition must read a
step (agent, condition, approval or output): a note or the trigger has no output.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from typing import Any

from .conditions import ConditionError, parse_condition
from .defects import Defect
from .graph import find_cycle, usable_id
from .numbers import whole_number
from .vocabulary import (
    DELIVER_VALUES,
    KINDS,
    MAX_NODES,
    NOTE,
    NOTE_COLORS,
    ON_TIMEOUT_VALUES,
    RETRIES,
    TIMEOUT_MINUTES,
    TRIGGER,
    fields_for,
)

_SHOW_LIMIT = 40
_SURROGATE_RE = re.compile(r"[\ud800-\udfff]")
_KIND_LIST = ", ".join(KINDS)


def show(value: Any) -> str:
    """A short JSON-looking rendering of a bad value for a message; never recurses."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value) if value.bit_length() <= 128 else "a very large number"
    if isinstance(value, float):
        return json.dumps(value) if value == value and abs(value) != float("inf") else str(value)
    if isinstance(value, str):
        text = value if len(value) <= _SHOW_LIMIT else value[:_SHOW_LIMIT] + "…"
        text = json.dumps(text, ensure_ascii=False)
        return _SURROGATE_RE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    if isinstance(value, list):
        return "an empty list" if not value else f"a list of {len(value)}"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _a(kind: str) -> str:
    return ("an " if kind[:1] in ("a", "e", "i", "o", "u") else "a ") + kind


def _choices(values: tuple[str, ...]) -> str:
    return ", ".join(json.dumps(v) for v in values)


class _Checker:
    """Collects the defects of one node; `defect` fills in node and index."""

    __slots__ = ("node", "index", "ident", "found")

    def __init__(self, node: dict, index: int, ident: str | None) -> None:
        self.node = node
        self.index = index
        self.ident = ident
        self.found: list[Defect] = []

    def defect(self, rule: str, field: str | None, msg: str, **extra: Any) -> None:
        self.found.append(Defect(rule, msg, self.ident, field, self.index, **extra))


@dataclass(slots=True)
class GraphContext:
    """What a node's checks read of the rest of the graph; nothing else crosses nodes.

    A node's verdict depends on its own dict, its index and, through this context
    only: first_index of its id (a duplicate names the first user), triggers[0] when
    it is a trigger, kind_of of its `after` entries and of its condition's target,
    and whether it is cycle_index (then `cycle` is in its message).
    """

    first_index: dict[str, int]
    """Usable id -> index of the first node carrying it."""
    kind_of: dict[str, Any]
    """Usable id -> `type` of that first node (checks only ask: note, trigger, other)."""
    triggers: list[int]
    """Indexes of the nodes whose type is trigger, ascending."""
    cycle: list[str] | None
    """find_cycle(nodes, include_self_loops=False)."""
    cycle_index: int | None = None
    """The node that carries the acyclic defect: first_index of cycle[0]."""
    trigger_id: str | None = None
    """The usable id of nodes[triggers[0]]: a second trigger's message names it."""

    def __post_init__(self) -> None:
        if self.cycle is not None and self.cycle_index is None:
            self.cycle_index = self.first_index[self.cycle[0]]


def first_uses(nodes: list) -> tuple[dict[str, int], dict[str, Any]]:
    """(first_index, kind_of) of GraphContext."""
    first_index: dict[str, int] = {}
    kind_of: dict[str, Any] = {}
    for index, node in enumerate(nodes):
        ident = usable_id(node)
        if ident is not None and ident not in first_index:
            first_index[ident] = index
            kind_of[ident] = node.get("type")
    return first_index, kind_of


def trigger_indexes(nodes: list) -> list[int]:
    return [i for i, n in enumerate(nodes) if isinstance(n, dict) and n.get("type") == TRIGGER]


def graph_context(nodes: list) -> GraphContext:
    """The context of a `nodes` list that passed the shape check."""
    first_index, kind_of = first_uses(nodes)
    triggers = trigger_indexes(nodes)
    return GraphContext(first_index, kind_of, triggers,
                        find_cycle(nodes, include_self_loops=False),
                        trigger_id=usable_id(nodes[triggers[0]]) if triggers else None)


NO_TRIGGER = Defect("one-trigger", "a design needs exactly one trigger node; it has none", None,
                    "nodes")


def graph_defects(context: GraphContext) -> list[Defect]:
    """The defects about the whole graph that come before every node's (not shape)."""
    return [] if context.triggers else [NO_TRIGGER]


def node_defects(node: Any, index: int, context: GraphContext) -> list[Defect]:
    """The defects of nodes[index], in field order; reads the rest of the graph via context."""
    if not isinstance(node, dict):
        return [Defect("graph-shape", f"node {index} must be an object, got {show(node)}",
                       None, None, index)]
    check = _Checker(node, index, usable_id(node))
    _check_identity(check, context.first_index, context.kind_of)
    _check_type(check, context.triggers, context.trigger_id)
    kind_of = context.kind_of
    _check_after(check, kind_of)
    if index == context.cycle_index:
        cycle = context.cycle
        check.defect("acyclic", "after", "after forms a cycle: " + " → ".join(cycle),
                     element=_closing_entry(node, cycle))
    kind = node.get("type")
    checks = _KIND_CHECKS.get(kind) if isinstance(kind, str) else None
    # A field is checked when present, when required, or (target) when deliver needs it.
    for name, required, run in checks or ():
        if required or name in node or (name == "target" and node.get("deliver") == "channel"):
            run(check, node.get(name), kind_of)
    return check.found


def collect_defects(graph: Any) -> list[Defect]:
    """Every broken rule of `graph`, as Defects (rule code, element, span included)."""
    shape = shape_defect(graph)
    if shape is not None:
        return [shape]
    nodes: list = graph["nodes"]
    context = graph_context(nodes)
    defects = graph_defects(context)
    for index, node in enumerate(nodes):
        defects.extend(node_defects(node, index, context))
    return defects


def validate_designer_graph(graph: Any) -> list[dict]:
    """The rulebook verdict: a list of {node, field, msg[, index]}; empty means valid."""
    return [d.as_dict() for d in collect_defects(graph)]


# --- graph shape and identity ---------------------------------------------


def shape_defect(graph: Any) -> Defect | None:
    """The graph-shape defect that stops all other checks, or None."""
    if not isinstance(graph, dict):
        return Defect("graph-shape", f"a design must be a JSON object, got {show(graph)}")
    if "nodes" not in graph:
        return Defect("graph-shape", "a design needs a nodes list", None, "nodes")
    nodes = graph["nodes"]
    if not isinstance(nodes, list):
        return Defect("graph-shape", f"nodes must be a list, got {show(nodes)}", None, "nodes")
    if not nodes:
        return Defect("graph-shape", "nodes is empty; a design needs at least a trigger",
                      None, "nodes")
    if len(nodes) > MAX_NODES:
        return Defect("graph-shape", f"a design has at most {MAX_NODES} nodes; this one has "
                      f"{len(nodes)}", None, "nodes")
    return None


def _check_identity(check: _Checker, first_index: dict[str, int],
                    kind_of: dict[str, Any]) -> None:
    if "id" not in check.node:
        check.defect("identity", "id", "node has no id; every node needs a unique, non-empty "
                     "string id")
        return
    ident = check.node["id"]
    if not isinstance(ident, str):
        check.defect("identity", "id", f"id must be a string, got {show(ident)}")
    elif not ident.strip():
        check.defect("identity", "id", "id is empty; every node needs a non-empty id")
    elif first_index[ident] != check.index:
        kind = kind_of.get(ident)
        earlier = f"an earlier {kind} node" if isinstance(kind, str) and kind in KINDS else \
            "an earlier node"
        check.defect("identity", "id", f"duplicate id {show(ident)}: {earlier} already uses it")


def _closing_entry(node: dict, cycle: list[str]) -> int | None:
    """Index in the node's `after` of the entry that closes `cycle` (which starts at it).

    In [a, b, c, a] node a runs after c: its entry "c" is the edge to cut, so the
    editor underlines that entry, not the whole list.  None when only a node
    sharing a's id lists c (nodes with one id are merged into one graph node).
    """
    after = node.get("after")
    if isinstance(after, list):
        for element, parent in enumerate(after):
            if parent == cycle[-2]:
                return element
    return None


def _check_type(check: _Checker, triggers: list[int], trigger_id: str | None = None) -> None:
    if "type" not in check.node:
        check.defect("known-kind", "type", f"node has no type; expected one of {_KIND_LIST}")
        return
    kind = check.node["type"]
    if not isinstance(kind, str) or kind not in KINDS:
        hint = _kind_hint(kind) if isinstance(kind, str) and len(kind) <= _SHOW_LIMIT else ""
        check.defect("known-kind", "type", f"unknown type {show(kind)}{hint}; expected one "
                     f"of {_KIND_LIST}")
    elif kind == TRIGGER and triggers[0] != check.index:
        first = show(trigger_id) if trigger_id is not None else f"node {triggers[0]}"
        check.defect("one-trigger", "type", f"a second trigger: {first} is already the "
                     "trigger, and a design has exactly one")


def _kind_hint(kind: str) -> str:
    """' (did you mean "agent"?)' or ''."""
    close = difflib.get_close_matches(kind.strip().lower(), KINDS, n=1, cutoff=0.6)
    return f" (did you mean {json.dumps(close[0])}?)" if close else ""


def _check_after(check: _Checker, kind_of: dict[str, Any]) -> None:
    if "after" not in check.node:
        return
    after = check.node["after"]
    if not isinstance(after, list):
        check.defect("edges", "after", f"after must be a list of node ids, got {show(after)}")
        return
    for element, parent in enumerate(after):
        if not isinstance(parent, str):
            msg = f"after[{element}] must be a node id (a string), got {show(parent)}"
        elif parent not in kind_of:
            msg = f"after[{element}]: no node has the id {show(parent)}"
        elif parent == check.ident:
            msg = f"after[{element}]: a node cannot run after itself"
        elif kind_of[parent] == NOTE:
            msg = f"after[{element}]: {show(parent)} is a note; notes never run, so nothing " \
                  "can run after one"
        else:
            continue
        check.defect("edges", "after", msg, element=element)


# --- per-field checks (dispatched by field name, in vocabulary order) -----


def _check_string(name: str) -> Any:
    def check_string(check: _Checker, value: Any, _kinds: dict) -> None:
        if not isinstance(value, str):
            check.defect("field-type", name, f"{name} must be a string, got {show(value)}")
    return check_string


def _check_payload(name: str) -> Any:
    def check_payload(check: _Checker, value: Any, _kinds: dict) -> None:
        kind = check.node["type"]
        if name not in check.node:
            check.defect("required-payload", name, f"{_a(kind)} node needs a {name}")
        elif not isinstance(value, str):
            check.defect("required-payload", name, f"{name} must be a string, got {show(value)}")
        elif not value.strip():
            check.defect("required-payload", name, f"{name} is empty; {_a(kind)} node cannot run "
                         "without it")
    return check_payload


def _check_retries(check: _Checker, value: Any, _kinds: dict) -> None:
    count = whole_number(value)
    if count is None or not RETRIES.minimum <= count <= RETRIES.maximum:
        check.defect("retries", "retries", f"retries must be a whole number from "
                     f"{RETRIES.minimum} to {RETRIES.maximum}, got {show(value)}")


def _check_timeout(check: _Checker, value: Any, _kinds: dict) -> None:
    minutes = whole_number(value)
    if minutes is None or not TIMEOUT_MINUTES.minimum <= minutes <= TIMEOUT_MINUTES.maximum:
        check.defect("deadline", "timeout_minutes", f"timeout_minutes must be a whole number "
                     f"from {TIMEOUT_MINUTES.minimum} to {TIMEOUT_MINUTES.maximum}, got "
                     f"{show(value)}")


def _check_on_timeout(check: _Checker, value: Any, _kinds: dict) -> None:
    if not isinstance(value, str) or value not in ON_TIMEOUT_VALUES:
        check.defect("deadline", "on_timeout", f"on_timeout must be one of "
                     f"{_choices(ON_TIMEOUT_VALUES)}, got {show(value)}")


def _check_options(check: _Checker, value: Any, _kinds: dict) -> None:
    if not isinstance(value, list) or not value:
        check.defect("field-type", "options", f"options must be a non-empty list of strings, "
                     f"got {show(value)}")
        return
    seen: dict[str, int] = {}
    for element, option in enumerate(value):
        if not isinstance(option, str):
            msg = f"options[{element}] must be a string, got {show(option)}"
        elif not option.strip():
            msg = f"options[{element}] is empty"
        elif option in seen:
            msg = f"options[{element}]: {show(option)} repeats options[{seen[option]}]"
        else:
            seen[option] = element
            continue
        check.defect("field-type", "options", msg, element=element)


def _check_deliver(check: _Checker, value: Any, _kinds: dict) -> None:
    if not isinstance(value, str) or value not in DELIVER_VALUES:
        check.defect("delivery", "deliver", f"deliver must be one of {_choices(DELIVER_VALUES)}"
                     f", got {show(value)}")


def _check_target(check: _Checker, value: Any, _kinds: dict) -> None:
    if check.node.get("deliver") != "channel":
        if "target" in check.node:
            _check_string("target")(check, value, _kinds)
        return
    if "target" not in check.node:
        check.defect("delivery", "target", "channel delivery needs a target such as "
                     "\"slack:#reviews\"")
    elif not isinstance(value, str):
        check.defect("field-type", "target", f"target must be a string, got {show(value)}")
    elif ":" not in value:
        check.defect("delivery", "target", f"a channel target looks like "
                     f"\"<platform>:<address>\" and contains ':'; got {show(value)}")


def _check_color(check: _Checker, value: Any, _kinds: dict) -> None:
    if not isinstance(value, str) or value not in NOTE_COLORS:
        check.defect("note-color", "color", "color must be yellow, blue, green, red or \"\" "
                     f"(no tint), got {show(value)}")


_check_expression_payload = _check_payload("expression")


def _check_expression(check: _Checker, value: Any, kind_of: dict[str, Any]) -> None:
    _check_expression_payload(check, value, kind_of)
    if not isinstance(value, str) or not value.strip():
        return
    try:
        condition = parse_condition(value)
    except ConditionError as error:
        check.defect("condition", "expression", f"expression: {error.msg}",
                     span=(error.start, error.end))
        return
    target = condition.node
    if target not in kind_of:
        msg = f"expression reads out.{target}, but no node has the id {show(target)}"
    elif kind_of[target] in (NOTE, TRIGGER):
        msg = f"expression reads out.{target}, a {kind_of[target]}: it has no output"
    else:
        return
    check.defect("condition", "expression", msg, span=condition.node_span)


_FIELD_CHECKS: dict[str, Any] = {
    "title": _check_string("title"),
    "prompt": _check_payload("prompt"),
    "question": _check_payload("question"),
    "expression": _check_expression,
    "retries": _check_retries,
    "timeout_minutes": _check_timeout,
    "on_timeout": _check_on_timeout,
    "options": _check_options,
    "profile": _check_string("profile"),
    "model": _check_string("model"),
    "deliver": _check_deliver,
    "target": _check_target,
    "text": _check_string("text"),
    "color": _check_color,
}

_KIND_CHECKS: dict[str, tuple[tuple[str, bool, Any], ...]] = {
    kind: tuple((field.name, field.required, _FIELD_CHECKS[field.name])
                for field in fields_for(kind)[3:])  # id, type and after are checked first
    for kind in KINDS
}
"""Per kind: (field, required, check) in vocabulary order, looked up once, not per node."""
