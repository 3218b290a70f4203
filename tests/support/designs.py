"""Design builders: one place for the nodes and designs the tests write.

Every builder returns a fresh dict. Defaults make a valid node in the design that
`design()` builds (a trigger `start`, then the nodes given); keyword fields override
anything, `after` included.
"""

from __future__ import annotations

from typing import Any


def trigger(node_id: str = "start", **fields: Any) -> dict:
    return {"id": node_id, "type": "trigger", **fields}


def agent(node_id: str = "work", *after: str, **fields: Any) -> dict:
    return {"id": node_id, "type": "agent", "prompt": f"do {node_id}",
            "after": list(after or ["start"]), **fields}


def condition(node_id: str, expression: Any, *after: str, **fields: Any) -> dict:
    return {"id": node_id, "type": "condition", "expression": expression,
            "after": list(after or ["work"]), **fields}


def approval(node_id: str = "ok", *after: str, **fields: Any) -> dict:
    return {"id": node_id, "type": "approval", "question": f"ok {node_id}?",
            "after": list(after or ["work"]), **fields}


def output(node_id: str = "out", *after: str, **fields: Any) -> dict:
    return {"id": node_id, "type": "output", "after": list(after or ["work"]), **fields}


def note(node_id: str = "memo", **fields: Any) -> dict:
    return {"id": node_id, "type": "note", **fields}


def design(*nodes: dict, name: str = "demo") -> dict:
    """A design: the trigger `start`, then `nodes` (indexes 1, 2, ...)."""
    return {"name": name, "nodes": [trigger(), *nodes]}


def design_text(*nodes: str, name: str = "demo", extra: str = "") -> str:
    """A design's text, one node (given as JSON text) per line, for the editor's tests."""
    return ('{"name": "' + name + '"' + extra + ', "nodes": [\n  ' + ",\n  ".join(nodes)
            + "\n]}")


def oversized_design(megabytes: float, name: str = "huge") -> dict:
    """A design of about `megabytes` MB of JSON: agents chained far past MAX_NODES (many
    small objects: what is slowest to parse, as an attack would write it)."""
    count = int(megabytes * 1e6 / 110)
    return design(*(agent(f"a{i}", prompt="p" * 40) for i in range(count)), name=name)
