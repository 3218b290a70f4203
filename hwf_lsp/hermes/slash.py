"""The `/workflow` slash command: list, run, answer, respond, resume, status, cancel.

Backed by the same functions as the chat tools (`tools.py`), so a slash command
and a tool call do exactly the same thing to a run; this module only parses the
words and turns the tools' answers into a few lines of text. Agent steps park
unless `--llm` asks the host's `ctx.llm` to perform them.
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hwf_lsp.hermes import tools
from hwf_lsp.hermes.engine import Workflows
from hwf_lsp.hermes.prompts import cron_prompt
from hwf_lsp.rules.run_facts import approval_options
from hwf_lsp.rules.step_words import step_sentence
from hwf_lsp.workflow.seams import AgentSeam

USAGE = """\
/workflow list                                   designs and the newest runs
/workflow run NAME [--from NODE] [--base-run RUN] [--llm]
/workflow answer RUN CHOICE                      answer a parked approval
/workflow respond RUN TEXT...                    give a parked agent step its result
/workflow resume RUN [--llm]                     advance a run again
/workflow status [RUN]                           one run, or the newest runs
/workflow cancel RUN
/workflow cron-prompt [RUN]                      the prompt of a cron job that performs agent steps
--llm: the host's model performs agent steps (ctx.llm); without it they park."""



class SlashError(ValueError):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise SlashError(message)


def _parser() -> _Parser:
    parser = _Parser(prog="/workflow", add_help=False)
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    sub.add_parser("list", add_help=False)
    run = sub.add_parser("run", add_help=False)
    run.add_argument("name")
    run.add_argument("--from", dest="from_node")
    run.add_argument("--base-run")
    run.add_argument("--llm", action="store_true")
    answer = sub.add_parser("answer", add_help=False)
    answer.add_argument("run_id")
    answer.add_argument("choice")
    respond = sub.add_parser("respond", add_help=False)
    respond.add_argument("run_id")
    respond.add_argument("text", nargs="+")
    resume = sub.add_parser("resume", add_help=False)
    resume.add_argument("run_id")
    resume.add_argument("--llm", action="store_true")
    status = sub.add_parser("status", add_help=False)
    status.add_argument("run_id", nargs="?")
    cancel = sub.add_parser("cancel", add_help=False)
    cancel.add_argument("run_id")
    prompt = sub.add_parser("cron-prompt", add_help=False)
    prompt.add_argument("run_id", nargs="?")
    sub.add_parser("help", add_help=False)
    return parser


def summary_lines(summary: dict[str, Any]) -> list[str]:
    """A run summary as text: status, one line per step, what it waits for, the next step."""
    run_id = summary.get("run_id")
    lines = [f"run {run_id} of {summary.get('name')}: {summary.get('status')} "
             f"({summary.get('progress')} steps finished)"]
    for step in summary.get("step_states") or ():  # the engine's facts, in its words
        lines.append(f"  {step.get('id')} ({step.get('type')}): {step_sentence(step)}")
    for notice in summary.get("notices") or ():
        lines.append(f"  note: {notice}")
    for text in summary.get("notifications") or ():
        lines.append(f"  notification: {text}")
    if summary.get("error"):
        lines.append(f"  error: {summary['error']}")
    pending = summary.get("pending") or {}
    if summary.get("status") == "awaiting_agent":
        lines.append(f"  waits for an agent at {pending.get('node')!r}: "
                     f"{str(pending.get('prompt', ''))[:200]}")
        lines.append(f"  next: /workflow respond {run_id} TEXT, or /workflow resume {run_id} "
                     "--llm, or ask the assistant to perform it")
    elif summary.get("status") == "awaiting_approval":
        options = approval_options(pending.get("options"))
        lines.append(f"  waits for approval at {pending.get('node')!r}: "
                     f"{pending.get('question', '')}")
        lines.append("  next: " + " | ".join(f"/workflow answer {run_id} {shlex.quote(str(o))}"
                                             for o in options))
    return lines


def _runs_lines(answer: dict[str, Any]) -> list[str]:
    runs = answer.get("runs") or []
    skipped = [f"skipped unreadable run file {u.get('path')}: {u.get('reason')}"
               for u in answer.get("unreadable") or ()]
    if not runs:
        return ["no runs yet", *skipped]
    return [*(f"{r.get('run_id')}  {r.get('name')}  {r.get('status')}  {r.get('progress')}  "
              f"{r.get('updated_at')}" for r in runs), *skipped]


def _designs_lines(answer: dict[str, Any]) -> list[str]:
    designs = answer.get("designs") or []
    if not designs:
        return ["no designs yet (workflow_design_save stores one)"]
    return [f"{d.get('name')}  unreadable: {d['error']}" if d.get("error")
            else f"{d.get('name')}  {d.get('nodes')} nodes" for d in designs]


def run_slash(raw_args: str, home: Path, llm_seam: Callable[[], AgentSeam]) -> str:
    """`/workflow <raw_args>` → the text to show; an error is one line, never a traceback."""
    try:
        words = shlex.split(raw_args or "")
        args = _parser().parse_args(words or ["help"])
    except (ValueError, SlashError) as exc:
        return f"/workflow: {exc}\n{USAGE}"
    command = args.command
    if command == "help":
        return USAGE
    if command == "cron-prompt":
        return cron_prompt(args.run_id)
    seam = llm_seam() if getattr(args, "llm", False) else None
    flows = Workflows(home, seam)

    def call(fn: Callable[[Workflows, dict[str, Any]], dict[str, Any]],
             tool_args: dict[str, Any]) -> dict[str, Any]:
        try:
            return fn(flows, {k: v for k, v in tool_args.items() if v is not None})
        except Exception as exc:  # noqa: BLE001 - shown as one line
            return tools.error_result(exc)

    if command == "list":
        answers = [call(tools.list_designs, {}), call(tools.runs, {"limit": 10})]
        if any(map(_is_error, answers)):
            return "/workflow list: " + next(a["error"] for a in answers if _is_error(a))
        return "\n".join(["designs:", *("  " + line for line in _designs_lines(answers[0])),
                          "runs:", *("  " + line for line in _runs_lines(answers[1]))])
    if command == "status" and args.run_id is None:
        answer = call(tools.runs, {"limit": 10})
        return f"/workflow status: {answer['error']}" if _is_error(answer) else \
            "\n".join(_runs_lines(answer))
    given = vars(args)
    fn, tool_args = {
        "run": (tools.run, {k: given.get(k) for k in ("name", "from_node", "base_run")}),
        "answer": (tools.answer, {k: given.get(k) for k in ("run_id", "choice")}),
        "respond": (tools.respond, {"run_id": given.get("run_id"),
                                    "output": " ".join(given.get("text") or [])}),
        "resume": (_resume, {"run_id": given.get("run_id")}),
        "status": (_status, {"run_id": given.get("run_id")}),
        "cancel": (tools.cancel, {"run_id": given.get("run_id")}),
    }[command]
    answer = call(fn, tool_args)
    if _is_error(answer):
        return f"/workflow {command}: {answer['error']}"
    return "\n".join(summary_lines(answer))


def _is_error(answer: dict[str, Any]) -> bool:
    """A tool's error object (a run summary also has an `error` key: null or why it failed)."""
    return "error" in answer and set(answer) <= {"error", "argument", "defects"}


def _resume(flows: Workflows, args: dict[str, Any]) -> dict[str, Any]:
    run_id = tools.show(flows, args)["run"]["run_id"]
    return tools.summary_of(flows, flows.runner().advance(run_id), parked_hint=False)


def _status(flows: Workflows, args: dict[str, Any]) -> dict[str, Any]:
    return flows.summary(tools.show(flows, args)["run"])
