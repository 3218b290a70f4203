"""The run summary of docs/commands.md: what the editor and the Hermes tools show of a run.

Commands answer with it and `hwf/runsChanged` carries a list of them, so a
client never has to read run files itself.  Built from any dict a run file may
hold (another tool's, a hand-edited one): junk keys become None, never a crash.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hwf_lsp.workflow.run_facts import failed_step, plan_of, state_problem, step_status

__all__ = ["run_summary"]


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def run_summary(state: dict[str, Any], runs_root: Path | str) -> dict[str, Any]:
    """`{run_id, name, status, cursor, steps, step_states, pending, error, created_at,
    updated_at, base_run?, from_node?, stale?, corrupt?, path}` — see docs/commands.md;
    `corrupt` says why a run's shape is wrong (`run_facts.state_problem`).

    `steps` is the number of steps (as `hwf runs --json` has it); `step_states` says
    where each one stands."""
    run_id = _str_or_none(state.get("run_id"))
    failed = failed_step(state)
    plan = plan_of(state)
    step_states = [
        {"id": step["id"], "type": step.get("type"), "status": step_status(state, step["id"], failed)}
        for step in plan
    ]
    cursor = state.get("cursor")
    pending = state.get("pending")
    summary: dict[str, Any] = {
        "run_id": run_id,
        "name": _str_or_none(state.get("name")),
        "status": _str_or_none(state.get("status")),
        "cursor": cursor if isinstance(cursor, int) and not isinstance(cursor, bool) else None,
        "steps": len(plan) or None,
        "step_states": step_states,
        "pending": pending if isinstance(pending, dict) else None,
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
    summary["path"] = str(Path(runs_root) / f"{run_id}.json") if run_id else None
    return summary
