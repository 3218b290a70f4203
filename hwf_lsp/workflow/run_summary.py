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

from hwf_lsp.rules.names import check_design_name
from hwf_lsp.rules.run_facts import (
    approval_options,
    progress_of,
    state_problem,
    step_facts,
)
from hwf_lsp.rules.step_words import debug_mark, progress_text
from hwf_lsp.workflow.stores import DESIGNS_DIRNAME


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


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


def run_summary(state: dict[str, Any], runs_root: Path | str,
                design: Any = None) -> dict[str, Any]:
    """`{run_id, name, status, cursor, steps, finished, progress, step_states, pending,
    warnings, error, created_at, updated_at, base_run?, from_node?, stale?, corrupt?, path,
    design_path}` — see docs/commands.md; `corrupt` says why a run's shape is wrong
    (`run_facts.state_problem`).

    `steps` is the number of steps (as `hwf runs --json` has it); `step_states` are the
    run facts of each one (`run_facts.step_facts`); `finished` how many have their
    result, `progress` the text every surface shows (`finished/steps`)."""
    runs_root = Path(runs_root)
    run_id = _str_or_none(state.get("run_id"))
    step_states = step_facts(state, design)
    finished, total = progress_of(step_states)
    cursor = state.get("cursor")
    summary: dict[str, Any] = {
        "run_id": run_id,
        "name": _str_or_none(state.get("name")),
        "status": _str_or_none(state.get("status")),
        "cursor": cursor if isinstance(cursor, int) and not isinstance(cursor, bool) else None,
        "steps": total or None,
        "finished": finished if total else None,
        "progress": progress_text(finished, total),
        "step_states": step_states,
        "pending": _pending(state),
        "warnings": [{"node": fact["id"], "msg": fact["warning"]}
                     for fact in step_states if fact.get("warning")],
        "error": state.get("error"),
        "created_at": _str_or_none(state.get("created_at")),
        "updated_at": _str_or_none(state.get("updated_at")),
    }
    for key in ("base_run", "from_node", "stale"):
        if key in state:
            summary[key] = state[key]
    mark = debug_mark(state)
    if mark is not None:  # a debug run (hwf debug-adapter), its edits, and its words
        summary["debug"] = state["debug"]
        summary["debug_mark"] = mark
    problem = state_problem(state)
    if problem is not None:  # shown, not hidden: the other runs are listed as usual
        summary["corrupt"] = problem
    summary["path"] = str(runs_root / f"{run_id}.json") if run_id else None
    summary["design_path"] = _design_path(state.get("name"), str(runs_root))
    return summary
