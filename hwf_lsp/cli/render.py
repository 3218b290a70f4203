"""How `hwf` shows runs to people: step lines, what a parked run waits for, summaries.

Pure functions from a run state (a dict, as on disk) to text, so `run`, `show`
and `runs` print the same thing. They don't change state.  What each step did is the
engine's run facts (`rules.run_facts.step_facts`), in its words and icons
(`rules.step_words`); nothing here works a state out.
"""

from __future__ import annotations

import json
import math
import shlex
from typing import Any

from hwf_lsp.rules import run_facts, step_words
from hwf_lsp.rules.step_detail import step_detail as engine_step_detail
from hwf_lsp.workflow.run_summary import run_summary

PREVIEW_CHARS = 72


def preview(value: Any, limit: int = PREVIEW_CHARS) -> str:
    """A one-line rendering of an output: strings as-is, anything else as compact JSON."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def facts_of(state: dict[str, Any]) -> list[dict[str, Any]]:
    """The run's step facts (`run_facts.step_facts`), in plan order: all `hwf` shows."""
    return run_facts.step_facts(state)


def fact_of(state: dict[str, Any], node_id: str) -> tuple[int, int, dict[str, Any]] | None:
    """(plan position from 1, steps in the plan, the step's facts), None for no step."""
    facts = facts_of(state)
    for index, fact in enumerate(facts):
        if fact["id"] == node_id:
            return index + 1, len(facts), fact
    return None


def pending_position(state: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """("#i", the step's facts) for the step a parked run waits at; None when it is not in
    the plan."""
    pending = state.get("pending")
    node = pending.get("node") if isinstance(pending, dict) else None
    found = fact_of(state, node) if isinstance(node, str) else None
    return None if found is None else (f"#{found[0]}", found[2])


def last_log_detail(state: dict[str, Any], node_id: str) -> str | None:
    for entry in reversed(state.get("log") or []):
        if isinstance(entry, dict) and entry.get("node") == node_id:
            detail = entry.get("detail")
            return None if detail is None else str(detail)
    return None


def step_detail(state: dict[str, Any], fact: dict[str, Any]) -> str:
    """The most useful few words beside a step's label: its output, why it skipped, what
    it waits for, the receipt's or the failure's error (all from its run facts)."""
    status, node_id = fact["status"], fact["id"]
    outputs = state.get("outputs") if isinstance(state.get("outputs"), dict) else {}
    if status == step_words.STEP_NOT_DELIVERED:
        return f"NOT delivered to {fact.get('target') or 'a notification'}: {fact.get('error')}"
    if status in (step_words.STEP_DONE, step_words.STEP_REUSED) and node_id in outputs:
        where = f"from run {fact.get('base_run')}: " if status == step_words.STEP_REUSED else ""
        if fact.get("type") == "output" and "target" in fact:  # it has a delivery receipt
            return f"{where}delivered to {fact['target'] or 'a notification'}"
        if fact.get("type") == "condition":
            return where + (last_log_detail(state, node_id) or "true")
        return where + preview(outputs[node_id])
    if status == step_words.STEP_WAITING:
        pending = state.get("pending") if isinstance(state.get("pending"), dict) else {}
        what = (f"{pending.get('question', '')} " if fact.get("waiting_for") == "approval"
                else "")
        return f"{what}(since {fact.get('since')}" + (
            ", escalated)" if fact.get("escalated") else ")")
    if status == step_words.STEP_FAILED:
        return str(fact.get("error") or "failed")
    if status in (step_words.STEP_SKIPPED, step_words.STEP_REJECTED, step_words.STEP_REUSED):
        return str(fact.get("detail") or "")
    return ""


def step_line(position: str, fact: dict[str, Any], detail: str) -> str:
    """One step: position in the plan, id, kind, its label (`step_words.step_label`),
    detail, and how long it took when the run recorded it."""
    kind = str(fact.get("type"))
    took = step_words.ran_text(fact)
    line = f"  {position:>4} {fact['id']:<16} {kind:<10} {fact['label']:<14} {detail}"
    return (line.rstrip() + (f"  [{took}]" if took else "")).rstrip()


def step_lines(state: dict[str, Any]) -> list[str]:
    lines = []
    for index, fact in enumerate(facts_of(state)):
        lines.append(step_line(f"#{index + 1}", fact, step_detail(state, fact)))
        for number, attempt in enumerate(fact.get("attempts") or (), 1):
            lines.append(f"{'':>{7}}attempt {number} failed at {attempt.get('at')}: "
                         f"{attempt.get('error')}")
    return lines


def warning_lines(state: dict[str, Any]) -> list[str]:
    """What the run must not keep silent (a condition that read a field of text): one
    line per step that warns, from its run facts."""
    return [f"warning: step {fact['id']!r}: {fact['warning']}"
            for fact in facts_of(state) if fact.get("warning")]


def progress_line(state: dict[str, Any]) -> str:
    """`N/M steps finished`: the one progress convention (`run_facts.progress_of`)."""
    finished, total = run_facts.progress_of(facts_of(state))
    return f"{step_words.progress_text(finished, total)} steps finished"


def undelivered(state: dict[str, Any]) -> list[dict[str, Any]]:
    """The facts of the steps whose delivery failed."""
    return [f for f in facts_of(state) if f["status"] == step_words.STEP_NOT_DELIVERED]


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


def summary(state: dict[str, Any], runs_root: Any) -> dict[str, Any]:
    """The run summary of docs/commands.md (`workflow.run_summary`: the editor's
    `hwf.listRuns` and the Hermes tools answer the same), from any JSON object: a run
    whose shape is wrong is summarised as far as it can be, with `corrupt` saying why."""
    return run_summary(state, runs_root)


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
    """`hwf runs`: one line per run; PROGRESS is the summary's (steps finished / steps)."""
    if not summaries:
        return []
    lines = [f"{'RUN':<14}{'DESIGN':<20}{'STATUS':<19}{'PROGRESS':<10}{'UPDATED':<26}"
             "WAITING FOR"]
    for s in summaries:
        pending = s.get("pending") or {}
        waiting = ""
        if pending:
            waiting = f"{pending.get('kind')} {pending.get('node')}"
        if s.get("corrupt"):
            waiting = f"corrupt: {s['corrupt']}"
        status = "corrupt" if s.get("corrupt") else str(s.get("status"))
        if s.get("debug"):  # a debug run (hwf debug-adapter): marked, last on its line
            waiting = f"{waiting} [debug]".lstrip()
        lines.append(f"{str(s.get('run_id')):<14}{str(s.get('name')):<20}"
                     f"{status:<19}{str(s.get('progress')):<10}{str(s.get('updated_at') or '-'):<26}"
                     f"{waiting}".rstrip())
    return lines


def debug_lines(state: dict[str, Any]) -> list[str]:
    """`hwf show`: a debug run's mark (hwf debug-adapter) and the outputs the user edited."""
    mark = step_words.debug_mark(state)
    if mark is None:
        return []
    lines = [f"  {mark}"]
    for edit in step_words.debug_edits(state) or ():
        lines.append(f"    {edit.get('at')} {step_words.edit_place(edit)}: "
                     f"{json_text(edit.get('old'))} -> {json_text(edit.get('new'))}")
    return lines


def json_text(value: Any, limit: int = 120) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def step_view(state: dict[str, Any], node_id: str) -> tuple[dict[str, Any], list[str]]:
    """`hwf show RUN --step NODE`: the engine's step detail and its text (the context it
    was given, its full output, its attempts, times and delivery receipts)."""
    detail = engine_step_detail(state, node_id)
    fact = detail["step"]
    lines = [f"step {node_id} ({fact.get('type')}) of run {detail['run_id']} "
             f"({detail['name']}, {detail['run_status']}): {step_words.step_sentence(fact)}"]
    if fact.get("title"):
        lines.append(f"  title: {fact['title']}")
    lines.append(f"  started: {fact.get('started_at') or '-'}")
    lines.append(f"  ended: {fact.get('ended_at') or '-'}")
    lines.append(f"  took: {detail['duration'] or '-'}")
    attempts = fact.get("attempts") or []
    lines.append(f"  failed attempts: {len(attempts)}")
    for number, attempt in enumerate(attempts, 1):
        lines.append(f"    {number}. at {attempt.get('at')}: {attempt.get('error')}")
    lines.append("  context (what it was given):" if detail["context"] is not None
                 else "  context: -")
    if detail["context"] is not None:
        lines += _indented(_pretty(detail["context"], parse=True))
    lines.append("  output:" if detail["has_output"] else "  output: -")
    if detail["has_output"]:
        lines += _indented(_pretty(detail["output"]))
    lines.append(f"  deliveries: {len(detail['deliveries']) or '-'}")
    for receipt in detail["deliveries"]:
        verdict = "ok" if receipt.get("ok") else f"FAILED: {receipt.get('error')}"
        lines.append(f"    {receipt.get('at')} {receipt.get('deliver')} "
                     f"{receipt.get('target') or ''} key {receipt.get('key')}: {verdict}"
                     .replace("  ", " "))
    return detail, lines


def _pretty(value: Any, parse: bool = False) -> str:
    if parse and isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return value
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=2)


def _indented(text: str) -> list[str]:
    return ["    " + line for line in text.splitlines() or [""]]
