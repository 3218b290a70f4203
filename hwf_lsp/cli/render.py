"""How `hwf` shows runs to people: step lines, what a parked run waits for, summaries.

Pure functions from a run state (a dict, as on disk) to text, so `run`, `show`
and `runs` print the same thing. They don't change state.
"""

from __future__ import annotations

import json
import math
import shlex
from typing import Any

from hwf_lsp.workflow import run_facts
from hwf_lsp.workflow.run_facts import plan_of

PREVIEW_CHARS = 72


def preview(value: Any, limit: int = PREVIEW_CHARS) -> str:
    """A one-line rendering of an output: strings as-is, anything else as compact JSON."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def step_status(state: dict[str, Any], node_id: str) -> str:
    """done, skipped, rejected, waiting, failed or 'not run' (`run_facts.step_status`; a
    skipped approval whose answer was reject shows as rejected)."""
    status = run_facts.step_status(state, node_id, run_facts.failed_step(state))
    if status == run_facts.STEP_SKIPPED:
        answers = state.get("answers")
        if isinstance(answers, dict) and answers.get(node_id) == "reject":
            return "rejected"
    return status or "not run"


def pending_position(state: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """("[i/n]", step) for the step a parked run waits at; None when it is not in the plan."""
    pending = state.get("pending")
    node = pending.get("node") if isinstance(pending, dict) else None
    plan = plan_of(state)
    for index, step in enumerate(plan):
        if step["id"] == node:
            return f"[{index + 1}/{len(plan)}]", step
    return None


def last_log_detail(state: dict[str, Any], node_id: str) -> str | None:
    for entry in reversed(state.get("log") or []):
        if isinstance(entry, dict) and entry.get("node") == node_id:
            detail = entry.get("detail")
            return None if detail is None else str(detail)
    return None


def step_detail(state: dict[str, Any], node: dict[str, Any], status: str) -> str:
    """The most useful few words about one step: its output, why it skipped, what it awaits."""
    node_id = node["id"]
    kind = node.get("type")
    if status == "done":
        output = state["outputs"][node_id]
        if kind == "approval" and isinstance(output, dict):
            return f"answered {output.get('choice')!r}"
        if kind == "condition":
            return last_log_detail(state, node_id) or "true"
        if kind == "output":
            receipts = [r for r in state.get("deliveries") or []
                        if isinstance(r, dict) and r.get("node") == node_id]
            if receipts:
                receipt = receipts[-1]
                where = receipt.get("target") or "a notification"
                if receipt.get("ok"):
                    return f"delivered to {where}"
                return f"NOT delivered to {where} ({receipt.get('error')})"
        return preview(output)
    if status == "waiting":
        pending = state.get("pending") or {}
        if pending.get("kind") == "approval":
            return f"awaiting approval: {pending.get('question', '')}"
        return "awaiting an agent's response"
    if status == "failed":
        return str(state.get("error") or "failed")
    if status in ("skipped", "rejected"):
        return last_log_detail(state, node_id) or ""
    return ""


def step_line(position: str, node: dict[str, Any], status: str, detail: str) -> str:
    kind = str(node.get("type"))
    return f"  {position:>7} {node['id']:<16} {kind:<10} {status:<9} {detail}".rstrip()


def step_lines(state: dict[str, Any]) -> list[str]:
    plan = plan_of(state)
    lines = []
    for index, node in enumerate(plan):
        status = step_status(state, node["id"])
        lines.append(step_line(f"[{index + 1}/{len(plan)}]", node, status,
                               step_detail(state, node, status)))
    return lines


def command_line(words: list[str]) -> str:
    return " ".join(shlex.quote(w) for w in words)


def answer_command(run_id: str, choice: str, extra: list[str]) -> list[str]:
    """`hwf answer RUN_ID CHOICE [options]`; a choice that starts with `-` comes after
    `--`, or argparse would take it for an option (and `-rf`-like choices do exist)."""
    if choice.startswith("-"):
        return ["hwf", "answer", run_id, *extra, "--", choice]
    return ["hwf", "answer", run_id, choice, *extra]


def next_steps(state: dict[str, Any], extra: list[str]) -> list[str]:
    """What a parked run waits for, and the exact commands that move it on."""
    pending = state.get("pending") or {}
    run_id = state["run_id"]
    node = pending.get("node")
    if state.get("status") == "awaiting_approval":
        options = [str(o) for o in pending.get("options") or []]
        lines = [f"run {run_id} is waiting at approval {node!r}: {pending.get('question', '')}",
                 f"  options: {' | '.join(options)}"]
        if pending.get("timeout_minutes"):
            lines.append(f"  waiting since {pending.get('waiting_since')}; after "
                         f"{pending['timeout_minutes']} min: {pending.get('on_timeout')}")
        for choice in options:
            lines.append(f"  next: {command_line(answer_command(run_id, choice, extra))}")
        return lines
    if state.get("status") == "awaiting_agent":
        return [
            f"run {run_id} is waiting for an agent at step {node!r} (no agent command given)",
            f"  prompt: {preview(pending.get('prompt', ''), 200)}",
            f"  correlation id: {pending.get('correlation_id')}",
            "  next: " + command_line(['hwf', 'respond', run_id, '--output', 'TEXT', *extra]),
            "    or: " + command_line(['hwf', 'respond', run_id, '--structured', 'JSON', *extra]),
            "    or: " + command_line(['hwf', 'resume', run_id, '--agent-command', 'CMD', *extra]),
        ]
    return []


def summary(state: dict[str, Any], path: str) -> dict[str, Any]:
    """The run summary of docs/commands.md (the editor's `hwf.listRuns` shows the same).

    From any JSON object: a run whose shape is wrong (`run_facts.state_problem`) is
    summarised as far as it can be, with `corrupt` saying why."""
    problem = run_facts.state_problem(state)
    pending = state.get("pending")
    out: dict[str, Any] = {
        "run_id": state.get("run_id"),
        "name": state.get("name"),
        "status": state.get("status"),
        "cursor": state.get("cursor"),
        "steps": len(plan_of(state)) or None,
        "pending": pending if isinstance(pending, dict) else None,
        "error": state.get("error"),
        "updated_at": state.get("updated_at"),
    }
    for key in ("base_run", "from_node"):
        if key in state:
            out[key] = state[key]
    if problem is not None:
        out["corrupt"] = problem
    out["path"] = path
    return out


def json_safe(summary: dict[str, Any]) -> dict[str, Any]:
    """`summary` as strict JSON can carry it: a NaN or infinite number (a run file another
    tool wrote, e.g. `"cursor": 1e400`) becomes null, and the run is called corrupt, so one
    such run never keeps the others from being printed as JSON."""
    found: list[bool] = []

    def strict(value: Any) -> Any:
        if isinstance(value, float) and not math.isfinite(value):
            found.append(True)
            return None
        if isinstance(value, dict):
            return {key: strict(item) for key, item in value.items()}
        if isinstance(value, list):
            return [strict(item) for item in value]
        return value

    safe = strict(summary)
    if found and not safe.get("corrupt"):
        safe["corrupt"] = "it holds NaN or Infinity, which are not JSON numbers"
    return safe


def runs_table(summaries: list[dict[str, Any]]) -> list[str]:
    if not summaries:
        return []
    lines = [f"{'RUN':<14}{'DESIGN':<20}{'STATUS':<19}{'STEP':<7}{'UPDATED':<26}WAITING FOR"]
    for s in summaries:
        pending = s.get("pending") or {}
        waiting = ""
        if pending:
            waiting = f"{pending.get('kind')} {pending.get('node')}"
        if s.get("corrupt"):
            waiting = f"corrupt: {s['corrupt']}"
        status = "corrupt" if s.get("corrupt") else str(s.get("status"))
        step = f"{s.get('cursor')}/{s.get('steps')}" if s.get("steps") else str(s.get("cursor"))
        lines.append(f"{str(s.get('run_id')):<14}{str(s.get('name')):<20}"
                     f"{status:<19}{step:<7}{str(s.get('updated_at') or '-'):<26}"
                     f"{waiting}".rstrip())
    return lines
