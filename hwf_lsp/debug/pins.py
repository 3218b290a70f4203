"""`setVariable`: an output pinned by the user, and its record in the run.

The value replaces the output (or the part at `path`) in the run's `outputs`, where every
later step reads it, so it holds for the rest of the run.  The run records the edit in its
`debug` mark (`{node, path?, old, new, at}`) and as a log entry `edited`; saving is the
caller's (it knows whether it holds the run's lock).
"""

from __future__ import annotations

from typing import Any

from hwf_lsp.rules.conditions import resolve_path

DEBUG_KEY = "debug"
"""The run file's mark of a debug run: `{adapter, edits, testCase?, replay?}`."""


def pin(state: dict[str, Any], node: str, path: tuple[str | int, ...], value: Any, at: str,
        mark: dict[str, Any]) -> Any:
    """Pin `value` at `out.node.path` in `state` and record the edit; the old value.
    ValueError when there is no such output (a step that has not run) or path."""
    outputs = state.get("outputs") or {}
    if node not in outputs:
        raise ValueError(f"{node!r} has no output yet: only the output of a step that ran "
                         "can be changed")
    old = replace_value(outputs, node, path, value)
    edit: dict[str, Any] = {"node": node, "old": old, "new": value, "at": at}
    if path:
        edit["path"] = list(path)
    state.setdefault(DEBUG_KEY, mark).setdefault("edits", []).append(edit)
    state["log"].append({"at": at, "node": node, "event": "edited",
                         "detail": "output changed in the debugger"})
    state["updated_at"] = at
    return old


def replace_value(outputs: dict[str, Any], node: str, path: tuple[str | int, ...],
                  value: Any) -> Any:
    """Set `outputs[node]` at `path` to `value`; the old value (ValueError if absent)."""
    if not path:
        old, outputs[node] = outputs[node], value
        return old
    found, parent = resolve_path(outputs[node], path[:-1])
    last = path[-1]
    if found and isinstance(parent, list) and isinstance(last, int) and 0 <= last < len(parent):
        old, parent[last] = parent[last], value
        return old
    if found and isinstance(parent, dict) and str(last) in parent:
        old, parent[str(last)] = parent[str(last)], value
        return old
    where = ".".join(["out", node, *map(str, path)])
    raise ValueError(f"{where}: no such value to change")
