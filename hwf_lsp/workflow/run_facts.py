"""Facts read off a run state, one rule each, shared by the CLI, hints, lenses and summaries.

A run state may come from another tool or a hand edit, so every function takes
any dict and answers None rather than raising.
"""

from __future__ import annotations

from typing import Any

from hwf_lsp.workflow.graph import descendants
from hwf_lsp.workflow.plan import build_run_plan
from hwf_lsp.workflow.vocabulary import DEFAULT_APPROVAL_OPTIONS, RUN_STATUSES

STEP_DONE, STEP_SKIPPED, STEP_WAITING, STEP_FAILED = "done", "skipped", "waiting", "failed"


_SHAPES: tuple[tuple[str, type, bool], ...] = (
    ("outputs", dict, True), ("skipped", list, True), ("answers", dict, False),
    ("deliveries", list, False), ("attempts", dict, False), ("log", list, False),
)
"""(key, JSON type, required) of a run state's containers."""


def state_problem(state: Any) -> str | None:
    """Why `state` is not a run state the runner and every display can use, else None.

    One rule for the runner (which refuses to advance such a run) and the displays
    (`hwf runs`/`show`, the editor's run summaries show it as corrupt), so one malformed
    file never hides the others."""
    if not isinstance(state, dict):
        return f"expected a JSON object, got {type(state).__name__}"
    if not isinstance(state.get("run_id"), str):
        return "run_id must be a string"
    cursor = state.get("cursor")
    if isinstance(cursor, bool) or not isinstance(cursor, int) or cursor < 0:
        return "cursor must be a non-negative integer"
    status = state.get("status")
    if not isinstance(status, str) or status not in RUN_STATUSES:
        return f"unknown status {status!r}"[:120]
    for key, kind, required in _SHAPES:
        value = state.get(key)
        if (required or value is not None) and not isinstance(value, kind):
            return f"{key} must be a JSON {'object' if kind is dict else 'array'}"
    pending = state.get("pending")
    if pending is not None and not isinstance(pending, dict):
        return "pending must be an object or null"
    if status in ("awaiting_agent", "awaiting_approval") and pending is None:
        return f"status {status} without pending"
    if pending is not None and not (isinstance(pending.get("options"), list)
                                    or pending.get("options") is None):
        return "pending.options must be a JSON array"
    return None


def plan_of(state: dict[str, Any], design: Any = None) -> list[dict[str, Any]]:
    """The run's plan: from its `design` snapshot, else from `design` (the stored or open
    design of the same name, which is what the runner resumes with); [] when neither plans."""
    for candidate in (state.get("design"), design):
        if isinstance(candidate, dict) and candidate.get("nodes"):
            try:
                return build_run_plan(candidate)
            except Exception:  # noqa: BLE001 - a hand-edited snapshot must not break a reader
                continue
    return []


def failed_step(state: Any, design: Any = None) -> str | None:
    """The step a failed run failed at, as the runner records it; None unless `failed`.

    The runner's `_fail` is the only way a run becomes `failed`: it appends a log entry
    `{event: "failed", node: <step id>}` and leaves `cursor` on that step (the cursor is
    the index of the next step to run, and a failed step never ran to the end).  So:
    the node of the last `failed` log entry, else the plan step at the cursor (for runs
    without a log, e.g. written by another tool).  Attempts are not consulted: a
    condition that cannot be parsed fails with no attempt counted.
    """
    if not isinstance(state, dict) or state.get("status") != "failed":
        return None
    log = state.get("log")
    if isinstance(log, list):
        for entry in reversed(log):
            if isinstance(entry, dict) and entry.get("event") == "failed":
                node = entry.get("node")
                if isinstance(node, str) and node:
                    return node
    cursor = state.get("cursor")
    if not isinstance(cursor, int) or isinstance(cursor, bool) or cursor < 0:
        return None
    plan = plan_of(state, design)
    return plan[cursor]["id"] if cursor < len(plan) else None


def step_status(state: dict[str, Any], step_id: str, failed: str | None = None) -> str | None:
    """done / skipped / waiting / failed for one step of a run; None when it has not run.

    `failed` is `failed_step(state, ...)`, passed in so a caller asking about every step
    of a run finds it once.
    """
    skipped = state.get("skipped")
    if isinstance(skipped, list) and step_id in skipped:
        return STEP_SKIPPED
    outputs = state.get("outputs")
    if isinstance(outputs, dict) and step_id in outputs:
        return STEP_DONE
    pending = state.get("pending")
    if isinstance(pending, dict) and pending.get("node") == step_id:
        return STEP_WAITING
    if failed is not None and failed == step_id:
        return STEP_FAILED
    return None


def approval_options(options: Any) -> list[str]:
    """The options an approval may be answered with: its own when they are a non-empty
    list of strings, else DEFAULT_APPROVAL_OPTIONS (what the runner parks it with)."""
    if isinstance(options, list) and options and all(isinstance(o, str) for o in options):
        return list(options)
    return list(DEFAULT_APPROVAL_OPTIONS)


def rerun_steps(state: dict[str, Any]) -> set[str] | None:
    """The steps a "run from here" run executes again: `from_node` and its descendants in
    the run's design snapshot (prepare_rerun's rule).  None for a run that reuses nothing
    (no `from_node`, or no `base_run` to reuse from), or without a snapshot."""
    from_node, design = state.get("from_node"), state.get("design")
    if not (isinstance(from_node, str) and isinstance(state.get("base_run"), str)
            and isinstance(design, dict) and isinstance(design.get("nodes"), list)):
        return None
    return {from_node} | descendants(design["nodes"], from_node)
