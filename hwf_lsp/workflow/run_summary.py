"""The run summary of docs/commands.md: what the editor and the Hermes tools show of a run.

Commands answer with it and `hwf/runsChanged` carries a list of them, so a
client never has to read run files itself, nor re-derive what the engine knows
(plan order, what a run from here reuses, an approval's options).  Built from any
dict a run file may hold (another tool's, a hand-edited one): junk keys become
None, never a crash.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from hwf_lsp.workflow.names import check_design_name
from hwf_lsp.workflow.run_facts import (
    STEP_DONE,
    STEP_SKIPPED,
    approval_options,
    failed_step,
    plan_of,
    rerun_steps,
    state_problem,
    step_status,
)
from hwf_lsp.workflow.stores import DESIGNS_DIRNAME

__all__ = ["STEP_ANSWERED", "STEP_REUSED", "run_summary"]

STEP_REUSED, STEP_ANSWERED = "reused", "answered"


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _step_states(state: dict[str, Any]) -> list[dict[str, Any]]:
    """`[{id, type, title, status, rerun?, answer?}]` in plan order.

    A step with a result is `reused` when a run from here copied it from its base run
    (outside `rerun_steps`), else `answered` when it is an answered approval; the other
    statuses are `step_status`'s."""
    failed = failed_step(state)
    rerun = rerun_steps(state)
    answers = state.get("answers") if isinstance(state.get("answers"), dict) else {}
    step_states = []
    for step in plan_of(state):
        step_id = step["id"]
        status = step_status(state, step_id, failed)
        entry: dict[str, Any] = {"id": step_id, "type": step.get("type"),
                                 "title": _str_or_none(step.get("title"))}
        if status in (STEP_DONE, STEP_SKIPPED):
            if rerun is not None and step_id not in rerun:
                status = STEP_REUSED
            elif step_id in answers:
                status = STEP_ANSWERED
                entry["answer"] = answers[step_id]
        entry["status"] = status
        if rerun is not None:
            entry["rerun"] = step_id in rerun
        step_states.append(entry)
    return step_states


def _pending(state: dict[str, Any]) -> dict[str, Any] | None:
    """The parked step, an approval's `options` resolved (its own, else the defaults)."""
    pending = state.get("pending")
    if not isinstance(pending, dict):
        return None
    if pending.get("kind") == "approval" or state.get("status") == "awaiting_approval":
        return {**pending, "options": approval_options(pending.get("options"))}
    return pending


def _design_path(name: Any, runs_root: str) -> str | None:
    """The stored design of the run's name (`workflow-designs/<name>.json` beside the
    runs directory) when that file exists, so a client never rebuilds $HERMES_HOME."""
    try:
        file_name = f"{check_design_name(name)}.json"
    except ValueError:
        return None
    # os.path, not Path: a list of 200 summaries is built on every runs change
    path = os.path.join(os.path.dirname(runs_root), DESIGNS_DIRNAME, file_name)
    return path if os.path.isfile(path) else None


def run_summary(state: dict[str, Any], runs_root: Path | str) -> dict[str, Any]:
    """`{run_id, name, status, cursor, steps, step_states, pending, error, created_at,
    updated_at, base_run?, from_node?, stale?, corrupt?, path, design_path}` — see
    docs/commands.md; `corrupt` says why a run's shape is wrong (`run_facts.state_problem`).

    `steps` is the number of steps (as `hwf runs --json` has it); `step_states` says
    where each one stands."""
    runs_root = Path(runs_root)
    run_id = _str_or_none(state.get("run_id"))
    step_states = _step_states(state)
    cursor = state.get("cursor")
    summary: dict[str, Any] = {
        "run_id": run_id,
        "name": _str_or_none(state.get("name")),
        "status": _str_or_none(state.get("status")),
        "cursor": cursor if isinstance(cursor, int) and not isinstance(cursor, bool) else None,
        "steps": len(step_states) or None,
        "step_states": step_states,
        "pending": _pending(state),
        "error": state.get("error"),
        "created_at": _str_or_none(state.get("created_at")),
        "updated_at": _str_or_none(state.get("updated_at")),
    }
    for key in ("base_run", "from_node", "stale"):
        if key in state:
            summary[key] = state[key]
    problem = state_problem(state)
    if problem is not None:  # shown, not hidden: the other runs are listed as usual
        summary["corrupt"] = problem
    summary["path"] = str(runs_root / f"{run_id}.json") if run_id else None
    summary["design_path"] = _design_path(state.get("name"), str(runs_root))
    return summary
