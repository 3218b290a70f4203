"""workspace/executeCommand: the run commands of contract 5 (docs/commands.md).

Every command answers a run summary (listRuns: `{"runs": [...]}`) or a JSON-RPC
error with a clear message, also shown with window/showMessage.  Commands that
advance a run return when it parks or finishes; the run itself executes on a
worker thread (the server's RunManager, runs/manager.py), so the loop keeps serving
the editor.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from hwf_lsp.jsontext.jsontree import parse
from hwf_lsp.jsontext.positions import LineIndex
from hwf_lsp.rules.names import check_run_id
from hwf_lsp.rules.plan import PlanError
from hwf_lsp.rules.run_facts import approval_options
from hwf_lsp.server.documents import uri_to_path
from hwf_lsp.server.guard import RequestRefused
from hwf_lsp.workflow.locks import RunBusyError
from hwf_lsp.workflow.run_summary import run_summary

if TYPE_CHECKING:
    from hwf_lsp.server.runs.manager import RunManager
    from hwf_lsp.server.server import HwfServer
    from hwf_lsp.workflow.runner import Runner

log = logging.getLogger(__name__)

START_RUN = "hwf.startRun"
RUN_FROM_HERE = "hwf.runFromHere"
RESUME_RUN = "hwf.resumeRun"
ANSWER_APPROVAL = "hwf.answerApproval"
RESPOND_AGENT = "hwf.respondAgent"
CANCEL_RUN = "hwf.cancelRun"
LIST_RUNS = "hwf.listRuns"
SHOW_STEP = "hwf.showStep"
COMMANDS = (START_RUN, RUN_FROM_HERE, RESUME_RUN, ANSWER_APPROVAL, RESPOND_AGENT, CANCEL_RUN,
            LIST_RUNS, SHOW_STEP)
READ_ONLY = (LIST_RUNS, SHOW_STEP)
# the canvas shows these refusals itself (refusal)
CANVAS_EDITS = "hwf.edit."
"""Commands that change no run: no refresh of lenses and hints after them."""

INVALID_PARAMS = -32602
REQUEST_FAILED = -32803
"""LSP's RequestFailed: the arguments were fine, the operation was not possible."""
RUNS_DISABLED = "runs are disabled in an untrusted workspace"
MAX_LISTED_RUNS = 200


class CommandError(Exception):
    def __init__(self, message: str, code: int = REQUEST_FAILED) -> None:
        super().__init__(message)
        self.code = code


def bad_arguments(usage: str, why: str) -> CommandError:
    """-32602; the handler wrapper prefixes the command's name."""
    return CommandError(f"{why}; arguments: {usage}", INVALID_PARAMS)


# --- arguments ----------------------------------------------------------------


def _arg(args: tuple[Any, ...], index: int, usage: str, what: str,
         required: bool = True) -> Any:
    if index >= len(args) or args[index] is None:
        if required:
            raise bad_arguments(usage, f"missing {what}")
        return None
    return args[index]


def _string(value: Any, usage: str, what: str) -> str:
    if not isinstance(value, str) or not value:
        raise bad_arguments(usage, f"{what} must be a non-empty string")
    return value


def _run_id(args: tuple[Any, ...], usage: str) -> str:
    value = _string(_arg(args, 0, usage, "run_id"), usage, "run_id")
    try:
        return check_run_id(value)
    except ValueError as exc:
        raise bad_arguments(usage, str(exc)) from None


def design_from_editor(server: HwfServer, uri: str) -> tuple[dict[str, Any], str]:
    """The design as the editor has it (unsaved edits included), and the name to file it under.

    An open document's text wins (its syntax error located as the editor shows it); a
    closed one is read from disk by the engine's `load_design_file`. The name follows the
    engine's one rule (`design_files.design_name_for`).
    """
    from hwf_lsp.workflow import design_files  # the run machinery: on first use

    path = uri_to_path(uri)
    analysis = server.analysis(uri)  # the open design's current text, already parsed
    opened = server.open_text(uri) if analysis is None else (analysis.version, analysis.text)
    if opened is None:
        if path is None:
            raise CommandError(f"{uri} is not open in the editor and is not a file")
        try:
            return design_files.load_design_file(path)
        except FileNotFoundError:
            raise CommandError(f"{path}: no such file") from None
        except ValueError as exc:
            raise CommandError(f"{path} {exc}") from None
    text = opened[1]
    shown = design_files.file_stem(path or uri)
    doc = analysis.doc if analysis is not None else parse(text)
    if doc.errors:
        first = doc.errors[0]
        line, column = LineIndex(text).position(min(first.start, len(text)), "utf-32")
        raise CommandError(
            f"{shown} is not valid JSON ({first.msg} at line {line + 1}, column "
            f"{column + 1}): a design with defects cannot run"
        )
    design = doc.to_python()
    if not isinstance(design, dict):
        raise CommandError(f"{shown} is not a design: expected a JSON object")
    return design, design_files.design_name_for(design, path or uri) or "design"


# --- the commands ---------------------------------------------------------------


class RunCommands:
    """The handlers, bound to one server and its RunManager."""

    def __init__(self, server: HwfServer) -> None:
        self.server = server
        self.manager: RunManager = server.run_manager
        self.in_flight: set[asyncio.Task[Any]] = set()
        """The commands being answered now: `shutdown` lets them answer before it does."""

    def summary(self, state: dict[str, Any], **extra: Any) -> dict[str, Any]:
        return {**run_summary(state, self.manager.runs_root()), **extra}

    def require_runs_enabled(self) -> None:
        if not self.server.settings.runs_enabled:
            raise CommandError(RUNS_DISABLED)

    async def start_run(self, *args: Any) -> dict[str, Any]:
        usage = "[uri]"
        self.require_runs_enabled()
        uri = _string(_arg(args, 0, usage, "uri"), usage, "uri")
        design, name = design_from_editor(self.server, uri)

        def work(runner: Runner, claim: Callable[[str], None]) -> dict[str, Any]:
            run_id = runner.create(design, name=name)["run_id"]
            claim(run_id)
            return runner.advance(run_id)

        state = await self.manager.execute(f"Run {name}", work)
        return self.summary(state)

    async def run_from_here(self, *args: Any) -> dict[str, Any]:
        usage = "[uri, node_id, base_run_id?]"
        self.require_runs_enabled()
        uri = _string(_arg(args, 0, usage, "uri"), usage, "uri")
        node_id = _string(_arg(args, 1, usage, "node_id"), usage, "node_id")
        base = _arg(args, 2, usage, "base_run_id", required=False)
        if base is not None:
            base = _run_id((base,), usage)
        design, name = design_from_editor(self.server, uri)
        notices: list[str] = []

        from hwf_lsp.workflow.rerun import prepare_rerun

        def work(runner: Runner, claim: Callable[[str], None]) -> dict[str, Any]:
            state, found = prepare_rerun(runner.runs, design, node_id, name=name,
                                         base_run_id=base)
            notices.extend(found)
            claim(state["run_id"])
            # the first notice says what is reused when there is a base run; the rest warn
            warnings = found[1:] if state.get("base_run") else found
            if warnings:
                self.manager.show(types.MessageType.Warning, "; ".join(warnings))
            return runner.advance(state["run_id"])

        state = await self.manager.execute(f"Run {name} from {node_id}", work)
        return self.summary(state, notices=notices)

    async def resume_run(self, *args: Any) -> dict[str, Any]:
        usage = "[run_id]"
        self.require_runs_enabled()
        run_id = _run_id(args, usage)
        state = await self.manager.execute(
            f"Resume run {run_id}", lambda runner, _claim: runner.advance(run_id), run_id)
        return self.summary(state)

    async def answer_approval(self, *args: Any) -> dict[str, Any]:
        usage = "[run_id, choice?]"
        self.require_runs_enabled()
        run_id = _run_id(args, usage)
        choice = _arg(args, 1, usage, "choice", required=False)
        state = await asyncio.to_thread(self.manager.run_store().load, run_id)
        pending = state.get("pending") if isinstance(state.get("pending"), dict) else None
        if state.get("status") != "awaiting_approval" or pending is None:
            raise CommandError(
                f"run {run_id} is not waiting for an approval (status: {state.get('status')})")
        options = approval_options(pending.get("options"))
        if choice is None:
            choice = await self.ask_choice(run_id, pending, options)
            if choice is None:
                return self.summary(state, notices=[
                    f"no choice made: approval {pending.get('node')!r} is still waiting"])
        if choice not in options:
            raise CommandError(
                f"{choice!r} is not an option of approval {pending.get('node')!r} of run "
                f"{run_id}: choose one of {', '.join(options)}", INVALID_PARAMS)
        state = await self.manager.execute(
            f"Answer {choice!r} to run {run_id}",
            lambda runner, _claim: runner.answer(run_id, choice), run_id)
        return self.summary(state)

    async def ask_choice(self, run_id: str, pending: dict[str, Any],
                         options: list[str]) -> str | None:
        question = pending.get("question") or f"approve step {pending.get('node')}?"
        try:
            picked = await self.server.window_show_message_request_async(
                types.ShowMessageRequestParams(
                    type=types.MessageType.Info,
                    message=f"{question} (run {run_id}, step {pending.get('node')})",
                    actions=[types.MessageActionItem(title=option) for option in options]))
        except Exception as exc:  # noqa: BLE001 - a client that cannot ask
            raise CommandError(
                f"the editor could not ask for a choice ({exc}); pass one: "
                f"[run_id, choice] with choice one of {', '.join(options)}") from None
        title = getattr(picked, "title", None)
        if title is None and isinstance(picked, dict):
            title = picked.get("title")
        return title if isinstance(title, str) else None

    async def respond_agent(self, *args: Any) -> dict[str, Any]:
        usage = '[run_id, {"output": text} | {"structured": json}]'
        self.require_runs_enabled()
        run_id = _run_id(args, usage)
        response = _arg(args, 1, usage, "the response")
        if isinstance(response, str):
            given = {"output": response}
        elif isinstance(response, dict) and "structured" in response:
            given = {"structured": response["structured"]}
        elif isinstance(response, dict) and "output" in response:
            given = {"output": response["output"]}
        else:
            raise bad_arguments(usage,
                                'the response must be {"output": ...} or {"structured": ...}')
        state = await self.manager.execute(
            f"Respond to run {run_id}",
            lambda runner, _claim: runner.respond(run_id, **given), run_id)
        return self.summary(state)

    async def cancel_run(self, *args: Any) -> dict[str, Any]:
        usage = "[run_id]"
        self.require_runs_enabled()
        run_id = _run_id(args, usage)
        if await self.manager.cancel_active(run_id):
            state = await asyncio.to_thread(self.manager.run_store().load, run_id)
            return self.summary(state)
        busy: list[bool] = []
        state = await asyncio.to_thread(
            lambda: self.manager.runner().cancel(run_id, on_busy=lambda: busy.append(True)))
        if not busy:
            return self.summary(state)
        if state.get("status") == "cancelled":
            return self.summary(state, notices=[
                f"run {run_id} was being advanced by another process: asked to stop, it "
                "stopped (cancelled)"])
        return self.summary(state, notices=[
            f"run {run_id} is being advanced by another process: it stops before its "
            "next step"])

    async def list_runs(self, *args: Any) -> dict[str, Any]:
        usage = '[] or [{"design": name}]'
        query = args[0] if args else None
        design: Any = None
        if isinstance(query, dict):
            design = query.get("design")
        elif isinstance(query, str):
            design = query
        elif query is not None:
            raise bad_arguments(usage, "expected a design filter object")
        if design is not None and not isinstance(design, str):
            raise bad_arguments(usage, "design must be a string")
        from hwf_lsp.server.runs.notify import recent_summaries

        runs = await asyncio.to_thread(recent_summaries, self.server, MAX_LISTED_RUNS, design)
        return {"runs": runs}

    async def show_step(self, *args: Any) -> dict[str, Any]:
        """`[run_id, node_id]` → the engine's step detail (`rules.step_detail`): the
        step's run facts, the context it was given, its full output, its receipts."""
        usage = "[run_id, node_id]"
        run_id = _run_id(args, usage)
        node_id = _string(_arg(args, 1, usage, "node_id"), usage, "node_id")
        return await asyncio.to_thread(self._step_detail, run_id, node_id)

    def _step_detail(self, run_id: str, node_id: str) -> dict[str, Any]:
        from hwf_lsp.rules.step_detail import step_detail

        state = self.manager.run_store().load(run_id)
        design = None
        if not isinstance(state.get("design"), dict) and isinstance(state.get("name"), str):
            try:  # a run without a snapshot: the stored design of its name plans it
                design = self.manager.design_store().load(state["name"])
            except (OSError, ValueError):
                design = None
        return step_detail(state, node_id, design)


# --- errors: a JSON-RPC error and a message, never a crash --------------------------


def _message_of(exc: BaseException) -> tuple[str, int]:
    if isinstance(exc, CommandError):
        return str(exc), exc.code
    if isinstance(exc, FileNotFoundError):
        return str(exc.args[0] if exc.args else exc), REQUEST_FAILED
    if isinstance(exc, (ValueError, RunBusyError, PlanError)):
        return str(exc), REQUEST_FAILED
    if isinstance(exc, OSError):  # disk full, a read-only runs dir: say what, as hwf does
        from hwf_lsp.workflow.stores import describe_os_error

        log.warning("command failed: %s", exc)
        return describe_os_error(exc), REQUEST_FAILED
    log.exception("command failed", exc_info=exc)
    return f"internal error: {type(exc).__name__}: {exc}", REQUEST_FAILED


def _answering(server: HwfServer, command: str,
               handler: Callable[..., Coroutine[Any, Any, Any]],
               in_flight: set[asyncio.Task[Any]]) -> Callable[..., Any]:
    async def run(*args):  # unannotated: pygls passes the raw JSON arguments through
        task = asyncio.current_task()
        if task is not None:
            in_flight.add(task)
            task.add_done_callback(in_flight.discard)
        try:
            await server.settings_known()  # a command sent right after `initialized`
            result = await handler(*args)
            if command not in READ_ONLY:  # lenses and hints right after the answer
                from hwf_lsp.server.runs.notify import refresh_after_command

                await asyncio.to_thread(refresh_after_command, server, result)  # I/O off the loop
                server.recheck_all(runs_changed=True)
            return result
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - every failure is an answer
            raise refusal(server, command, exc) from None

    run.__name__ = handler.__name__
    return run


def refusal(server: HwfServer, command: str, exc: BaseException) -> RequestRefused:
    """A command's failure as its error answer, the message also shown to the user;
    a canvas edit's (`hwf.edit.*`) is not: the canvas that asked says it in its own words,
    and a second toast with the command's name says it twice."""
    message, code = _message_of(exc)
    log.info("%s refused: %s", command, message)  # one line: a refusal is not a bug
    if not command.startswith(CANVAS_EDITS):
        server.window_show_message(types.ShowMessageParams(
            type=types.MessageType.Error, message=f"{command}: {message}"))
    return RequestRefused(message=f"{command}: {message}", code=code)


async def _shut_down_runs(server: HwfServer, in_flight: set[asyncio.Task[Any]]) -> None:
    """`shutdown` (VS Code sends it on every window reload): the runs this server advances
    stop at a clean point, resumable, their agents killed; their commands answer first."""
    await server.run_manager.interrupt_all()
    pending = [task for task in in_flight if task is not asyncio.current_task()]
    if pending:
        await asyncio.wait(pending, timeout=5.0)
    server.runs_watcher.stop()


def _refuse_unknown_commands(server: HwfServer) -> None:
    """An unknown command name is a refusal (-32602, no traceback in the log): pygls's own
    workspace/executeCommand raised an error that it logged with a full traceback."""
    builtin = server.protocol.fm.builtin_features
    original = builtin.get(types.WORKSPACE_EXECUTE_COMMAND)
    if original is None:
        return

    def execute_command(params: types.ExecuteCommandParams):
        if params.command not in server.protocol.fm.commands:
            raise RequestRefused(code=INVALID_PARAMS, message=(
                f"unknown command {params.command!r}: this server has "
                f"{', '.join(sorted(server.protocol.fm.commands))}"))
        return (yield from original(params))

    builtin[types.WORKSPACE_EXECUTE_COMMAND] = execute_command


def register(server: HwfServer) -> None:
    commands = RunCommands(server)
    handlers = {
        START_RUN: commands.start_run,
        RUN_FROM_HERE: commands.run_from_here,
        RESUME_RUN: commands.resume_run,
        ANSWER_APPROVAL: commands.answer_approval,
        RESPOND_AGENT: commands.respond_agent,
        CANCEL_RUN: commands.cancel_run,
        LIST_RUNS: commands.list_runs,
        SHOW_STEP: commands.show_step,
    }
    for name, handler in handlers.items():
        server.command(name)(_answering(server, name, handler, commands.in_flight))
    _refuse_unknown_commands(server)

    @server.feature(types.SHUTDOWN)
    async def shutdown(*_params: Any) -> None:
        try:
            await _shut_down_runs(server, commands.in_flight)
        except Exception:  # shutdown must be answered whatever happens
            log.exception("stopping the runs at shutdown failed")
