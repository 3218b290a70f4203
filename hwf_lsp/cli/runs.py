"""`hwf run/resume/answer/respond/runs/show/cancel`: runs from a terminal (contract 4).

Runs live in $HERMES_HOME/workflow-runs, the same place the canvas, chat, cron and
the editor use. A run started here can be answered anywhere, and the other way
round. Every command is one short process: park and resume work across processes
because the state is on disk after every step.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from hwf_lsp.analysis.suggestions import did_you_mean
from hwf_lsp.cli import render
from hwf_lsp.cli.design_arg import load_design, refuse_defects
from hwf_lsp.cli.errors import (
    EXIT_BUSY,
    EXIT_FAILED,
    EXIT_OK,
    EXIT_PARKED,
    EXIT_USAGE,
    CliError,
    err,
    out,
    out_json,
)
from hwf_lsp.cli.signals import StopOnSignals
from hwf_lsp.rules.model_gate import ModelGate
from hwf_lsp.rules.run_facts import state_problem, was_interrupted
from hwf_lsp.rules.strict_json import NotStrictJson, strict_loads
from hwf_lsp.workflow.delivery import DELIVERY_ENV, Delivery, channel_argv_from_env
from hwf_lsp.workflow.interrupts import Interrupt
from hwf_lsp.workflow.locks import RunBusyError
from hwf_lsp.workflow.paths import hermes_home
from hwf_lsp.workflow.rerun import prepare_rerun
from hwf_lsp.workflow.runner import CancelPending, Runner, StepStillRunning
from hwf_lsp.workflow.seams import agent_seam_from_env
from hwf_lsp.workflow.stores import (
    DESIGNS_DIRNAME,
    RUNS_DIRNAME,
    DesignStore,
    RunStore,
    describe_os_error,
)
from hwf_lsp.workflow.trust import read_model_gate

STATUS_EXIT = {
    "completed": EXIT_OK,
    "failed": EXIT_FAILED,
    "cancelled": EXIT_FAILED,
    "awaiting_agent": EXIT_PARKED,
    "awaiting_approval": EXIT_PARKED,
    "running": EXIT_OK,  # not expected once advance returns; nothing went wrong
}


# --- where things live ------------------------------------------------------


def home_of(args: argparse.Namespace) -> Path:
    return Path(args.hermes_home).expanduser() if args.hermes_home else hermes_home()


def stores_of(args: argparse.Namespace) -> tuple[DesignStore, RunStore]:
    home = home_of(args)
    return DesignStore(home / DESIGNS_DIRNAME), RunStore(home / RUNS_DIRNAME, short_lived=True)


# --- the runner, configured from flags and environment ----------------------


def runner_options(args: argparse.Namespace) -> list[str]:
    """The flags to repeat in a suggested next command, so it runs the same way."""
    words: list[str] = []
    if getattr(args, "agent_command", None):
        words += ["--agent-command", args.agent_command]
    if getattr(args, "delivery_command", None):
        words += ["--delivery-command", args.delivery_command]
    if getattr(args, "no_model_override", False):
        words.append("--no-model-override")
    if args.hermes_home:
        words += ["--hermes-home", args.hermes_home]
    return words


def notify_on_stderr(text: str) -> None:
    lines = text.splitlines() or [""]
    err(f"[notification] {lines[0]}")
    for line in lines[1:]:
        err(f"               {line}")


def make_runner(args: argparse.Namespace, runs: RunStore, designs: DesignStore,
                printer: StepPrinter) -> Runner:
    try:
        agent = agent_seam_from_env(args.agent_command, hermes_home=str(home_of(args)))
    except ValueError as exc:  # shlex: unbalanced quotes
        raise CliError(f"--agent-command / $HWF_AGENT_COMMAND: {exc}") from None
    try:
        channel_argv = channel_argv_from_env(args.delivery_command)
    except ValueError as exc:
        raise CliError(f"--delivery-command / ${DELIVERY_ENV}: {exc}") from None
    return Runner(
        runs,
        agent=agent,
        delivery=Delivery(notify=notify_on_stderr, channel_argv=channel_argv or None),
        allow_model_override=model_gate(args).permits,
        on_event=printer,
        designs=designs,
        interrupt=args.signals.interrupt,
    )


def model_gate(args: argparse.Namespace) -> ModelGate:
    """The trust gate of $HERMES_HOME/config.yaml, narrowed by --no-model-override.

    --allow-model-override no longer opens anything; with the gate closed it says where
    the gate is."""
    gate = read_model_gate(home_of(args)).narrowed(not args.no_model_override,
                                                   "--no-model-override")
    if args.allow_model_override and not gate.open:
        err(f"note: --allow-model-override cannot open the trust gate; it is {gate.describe()}")
    return gate


class StepPrinter:
    """Prints one line per finished step, as the run goes (reads the just-persisted state
    and prints the step's run facts), and a failed delivery on stderr with what fixes it."""

    def __init__(self, runs: RunStore) -> None:
        self.runs = runs

    def __call__(self, event: dict[str, Any]) -> None:
        kind = event.get("event")
        if kind == "delivery":
            receipt = event.get("receipt") or {}
            if not receipt.get("ok"):
                err(delivery_failure(event.get("node"), receipt))
            return
        if kind == "step-answered":  # printed once the engine recorded it
            self.print_step(event)
            return
        if kind != "step-finish" or event.get("outcome") in ("parked", "interrupted"):
            return
        self.print_step(event)

    def print_step(self, event: dict[str, Any]) -> None:
        try:
            state = self.runs.load(event["run_id"])
        except (OSError, ValueError):
            return
        found = render.fact_of(state, event["node"])
        if found is None:
            return
        position, _total, fact = found
        detail = render.step_detail(state, fact)
        if event.get("outcome") == "retry":  # the step runs again: say why
            detail = f"retrying: {render.last_log_detail(state, event['node']) or ''}"
        out(render.step_line(f"#{position}", fact, detail))


def delivery_failure(node: Any, receipt: dict[str, Any]) -> str:
    """A failed delivery, as the command that made it reports it: the receipt's error and
    the setting that fixes it (the run goes on; the output stays in the run)."""
    where = receipt.get("target") or receipt.get("deliver")
    fix = ("give a channel command: --delivery-command CMD or $HWF_DELIVERY_COMMAND"
           if receipt.get("deliver") == "channel"
           else "notifications go to stderr; check that it is writable")
    return (f"hwf: step {node!r} was NOT delivered to {where}: {receipt.get('error')}; "
            f"to fix: {fix}")


# --- reporting the outcome ----------------------------------------------------


def report(state: dict[str, Any], runs: RunStore, args: argparse.Namespace,
           designs: DesignStore) -> int:
    """Say where the run stands and what to do next; the exit code follows its status."""
    state = with_design(state, designs)
    run_id = state["run_id"]
    status = state.get("status")
    if was_interrupted(state):
        entry = state["log"][-1]
        out(f"run {run_id} {args.signals.interrupt.reason} at step {entry.get('node')!r}: "
            "stopped at a clean point (an agent at work was stopped)")
        out(f"  next: {render.command_line(['hwf', 'resume', run_id, *runner_options(args)])}")
        out(f"state: {runs.path(run_id)}")
        return args.signals.exit_code
    progress = render.progress_line(state)
    if status in ("awaiting_approval", "awaiting_agent"):
        at = render.pending_position(state)
        if at is not None:
            position, fact = at
            out(render.step_line(position, fact, render.step_detail(state, fact)))
        for line in render.next_steps(state, runner_options(args)):
            out(line)
    elif status == "completed":
        not_delivered = [f["id"] for f in render.undelivered(state)]
        out(f"run {run_id} completed ({progress})" + (
            f"; not delivered: {', '.join(not_delivered)}" if not_delivered else ""))
    elif status == "failed":
        out(f"run {run_id} failed ({progress}): {state.get('error')}")
    elif status == "cancelled":
        out(f"run {run_id} is cancelled ({progress})")
    for line in render.warning_lines(state):
        out(line)
    out(f"state: {runs.path(run_id)}")
    return STATUS_EXIT.get(str(status), EXIT_FAILED)


def engine_call(fn, *a, **kw):  # a thin error translator
    """Run an engine call, turning its documented exceptions into one-line CLI errors."""
    try:
        return fn(*a, **kw)
    except StepStillRunning as exc:
        raise CliError(str(exc), EXIT_BUSY) from None
    except CancelPending as exc:  # the run is cancelled now: exit as for a cancelled run
        raise CliError(str(exc), EXIT_FAILED) from None
    except RunBusyError as exc:
        raise CliError(f"{exc}; try again when it is done (hwf show {exc.run_id})",
                       EXIT_BUSY) from None
    except FileNotFoundError as exc:
        raise CliError(str(exc)) from None
    except ValueError as exc:
        raise CliError(str(exc)) from None


def print_reused(state: dict[str, Any]) -> None:
    """Steps a run from here takes over from its base run: shown, not run again."""
    for index, fact in enumerate(render.facts_of(state)):
        if fact["status"] == "reused":
            out(render.step_line(f"#{index + 1}", fact, render.step_detail(state, fact)))


def with_design(state: dict[str, Any], designs: DesignStore) -> dict[str, Any]:
    """The state, with the stored design attached when the run has no snapshot.

    Runs the canvas or chat started may carry no `design`; the runner then uses
    the stored design of the same name, and so does the display. The file is not changed.
    """
    if isinstance(state.get("design"), dict) or not isinstance(state.get("name"), str):
        return state
    try:
        return {**state, "design": designs.load(state["name"])}
    except (OSError, ValueError):
        return state


# --- the subcommands ------------------------------------------------------------


def cmd_run(args: argparse.Namespace) -> int:
    designs, runs = stores_of(args)
    design, name, where = load_design(args.design, designs)
    refuse_defects(design, where)
    if args.base_run and not args.from_node:
        raise CliError("--base-run only makes sense with --from NODE")
    printer = StepPrinter(runs)
    runner = make_runner(args, runs, designs, printer)
    notices: list[str] = []
    if args.from_node:
        state, notices = engine_call(prepare_rerun, runs, design, args.from_node, name=name,
                                     base_run_id=args.base_run)
    else:
        state = engine_call(runner.create, design, name=name)
    out(f"run {state['run_id']} of {state['name']} started ({where})")
    for notice in notices:
        out(f"note: {notice}")
    if args.from_node:
        print_reused(state)
    state = engine_call(runner.advance, state["run_id"])
    return report(state, runs, args, designs)


def cmd_resume(args: argparse.Namespace) -> int:
    designs, runs = stores_of(args)
    runner = make_runner(args, runs, designs, StepPrinter(runs))
    state = engine_call(runner.advance, args.run_id)
    return report(state, runs, args, designs)


def cmd_answer(args: argparse.Namespace) -> int:
    designs, runs = stores_of(args)
    runner = make_runner(args, runs, designs, StepPrinter(runs))
    state = engine_call(runner.answer, args.run_id, args.choice)
    return report(state, runs, args, designs)


def cmd_respond(args: argparse.Namespace) -> int:
    designs, runs = stores_of(args)
    if args.structured is not None:
        try:
            given = {"structured": strict_loads(args.structured)}
        except NotStrictJson as exc:
            raise CliError(f"--structured is not strict JSON: {exc}") from None
        except (ValueError, RecursionError) as exc:
            raise CliError(f"--structured is not valid JSON: {exc}") from None
    else:
        given = {"output": args.output}
    runner = make_runner(args, runs, designs, StepPrinter(runs))
    state = engine_call(runner.respond, args.run_id, **given)
    return report(state, runs, args, designs)


def cmd_cancel(args: argparse.Namespace) -> int:
    designs, runs = stores_of(args)
    before = engine_call(runs.load, args.run_id)
    runner = Runner(runs, designs=designs)
    state = engine_call(runner.cancel, args.run_id)
    if before.get("status") in ("completed", "failed", "cancelled"):
        out(f"run {args.run_id} had already finished ({before.get('status')}); nothing to cancel")
    elif state.get("status") == "cancelled":
        out(f"run {args.run_id} cancelled")
    else:
        out(f"run {args.run_id} is busy: asked its runner to stop at its next clean point; "
            f"it has not stopped yet (hwf show {args.run_id})")
    return EXIT_OK


def cmd_runs(args: argparse.Namespace) -> int:
    """The newest runs (a page; the index says which files to read), newest first."""
    designs, runs = stores_of(args)
    limit = None if args.all else args.limit
    states, errors = runs.recent_with_errors(None if limit is None else limit + 1,
                                             design=args.design, status=args.status)
    more = limit is not None and len(states) > limit
    summaries = [render.summary(with_design(s, designs), runs.root) for s in states[:limit]]
    for error in errors:
        err(f"hwf runs: skipping unreadable run file {error.path}: {error.message}")
    for entry in summaries:
        if entry.get("corrupt"):
            err(f"hwf runs: run {entry['run_id']} is corrupt: {entry['corrupt']}")
    if args.json:
        out_json([render.json_safe(entry) for entry in summaries])
    elif summaries:
        for line in render.runs_table(summaries):
            out(line)
        if more:
            out(f"(the newest {limit}; more with --limit {2 * limit} or --all)")
    else:
        which = " ".join(f"{flag} {value}" for flag, value in (
            ("--design", args.design), ("--status", args.status)) if value)
        out(f"no runs{' matching ' + which if which else ''} in {runs.root}"
            f"{design_hint(args.design, designs, runs) if args.design else ''}")
    return EXIT_OK


def design_hint(name: str, designs: DesignStore, runs: RunStore) -> str:
    """" — did you mean 'x'?" for a design name no run has: the stored designs' names and
    those of the runs on disk (all read by the listing that found none)."""
    known = {*designs.list(), *runs.index.design_names()} - {name}
    return did_you_mean(name, sorted(known))


def cmd_show(args: argparse.Namespace) -> int:
    designs, runs = stores_of(args)
    state = engine_call(runs.load, args.run_id)
    if args.step is not None:
        return show_step(state, args, designs, runs)
    if args.json:
        out_json(state)
        return EXIT_OK
    problem = state_problem(state)
    if problem is not None:  # shown as far as it is safe: what it is, why, where
        out(f"run {args.run_id} of {state.get('name')}: corrupt")
        out(f"state: {runs.path(args.run_id)}")
        raise CliError(f"run {args.run_id} is corrupt: {problem}")
    state = with_design(state, designs)
    out(f"run {state['run_id']} of {state.get('name')}: {state.get('status')} "
        f"({render.progress_line(state)})")
    for key, label in (("from_node", "from node"), ("base_run", "base run"),
                       ("created_at", "created"), ("updated_at", "updated")):
        if state.get(key):
            out(f"  {label}: {state[key]}")
    for line in render.debug_lines(state):
        out(line)
    for line in render.step_lines(state):
        out(line)
    for line in render.warning_lines(state):
        out(line)
    if state.get("error"):
        out(f"error: {state['error']}")
    for line in render.next_steps(state, runner_options(args)):
        out(line)
    out(f"state: {runs.path(state['run_id'])}")
    return EXIT_OK


def show_step(state: dict[str, Any], args: argparse.Namespace, designs: DesignStore,
              runs: RunStore) -> int:
    """`hwf show RUN --step NODE [--json]`: the engine's step detail (rules.step_detail)."""
    problem = state_problem(state)
    if problem is not None:
        raise CliError(f"run {args.run_id} is corrupt: {problem}")
    try:
        detail, lines = render.step_view(with_design(state, designs), args.step)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if args.json:
        out_json(detail)
        return EXIT_OK
    for line in lines:
        out(line)
    out(f"state: {runs.path(args.run_id)}")
    return EXIT_OK


COMMANDS = {
    "run": cmd_run,
    "resume": cmd_resume,
    "answer": cmd_answer,
    "respond": cmd_respond,
    "cancel": cmd_cancel,
    "runs": cmd_runs,
    "show": cmd_show,
}


ADVANCING = ("run", "resume", "answer", "respond")
"""The subcommands that advance a run: a signal interrupts them at a clean point."""


def dispatch(args: argparse.Namespace) -> int:
    try:
        if args.command not in ADVANCING:
            return COMMANDS[args.command](args)
        with StopOnSignals(Interrupt()) as args.signals:
            return COMMANDS[args.command](args)
    except RunBusyError as exc:
        raise CliError(str(exc), EXIT_BUSY) from None
    except OSError as exc:
        raise CliError(describe_os_error(exc)) from None


__all__ = ["dispatch", "EXIT_USAGE"]
