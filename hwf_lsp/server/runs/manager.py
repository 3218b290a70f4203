"""Runs on worker threads, with work-done progress and cancel, for the server's commands.

An agent step can take minutes, so no run ever executes on the event loop: each
operation (start, run from here, resume, answer, respond) gets a thread of its
own, and the loop keeps answering hover and completion meanwhile.  The runner
reports steps through `on_event` (on the worker thread); everything that talks
to the client is handed to the loop with `call_soon_threadsafe`.

Cancel: the progress is `cancellable`; the client's window/workDoneProgress/cancel
cancels the token's future, which sets the run's `cancel_event`.  The runner
checks it before every step and the agent seam kills a running agent command, so
the run ends `cancelled` and its file is a complete, parseable state.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types

from hwf_lsp.rules.run_facts import was_interrupted
from hwf_lsp.workflow.interrupts import Interrupt
from hwf_lsp.workflow.locks import RunBusyError
from hwf_lsp.workflow.stores import DESIGNS_DIRNAME, RUNS_DIRNAME, DesignStore, RunStore

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer
    from hwf_lsp.workflow.runner import Runner

log = logging.getLogger(__name__)

T = TypeVar("T")

PARKED_MESSAGES = {
    "awaiting_agent": "waiting for an agent at {node}",
    "awaiting_approval": "waiting for approval at {node}",
}
PROGRESS_CREATE_TIMEOUT_S = 5.0
"""A client that never answers window/workDoneProgress/create must not hold up a run."""
CANCEL_WAIT_S = 15.0
"""How long hwf.cancelRun waits for an in-process run to stop (an agent is killed at once)."""
SHUTDOWN_WAIT_S = 10.0
"""How long `shutdown` waits for the runs it interrupts to reach a clean point (an agent
is killed at once; a channel delivery in progress is let finish, within its timeout)."""
SHUTDOWN_REASON = "interrupted: the editor shut the language server down"


@dataclass(slots=True)
class ActiveRun:
    """A run this server is advancing now: how to stop it and how to wait for it."""

    cancel_event: threading.Event = field(default_factory=threading.Event)
    interrupt: Interrupt = field(default_factory=Interrupt)
    done: asyncio.Future[Any] | None = None


class RunProgress:
    """One work-done progress (or nothing, when the client has none); lives on the loop."""

    def __init__(self, server: HwfServer, token: str | None) -> None:
        self.server = server
        self.token = token

    @classmethod
    async def begin(cls, server: HwfServer, title: str,
                    cancel_event: threading.Event) -> RunProgress:
        caps = server.client_capabilities
        if not (caps.window and caps.window.work_done_progress):
            return cls(server, None)
        token = f"hwf-run-{uuid.uuid4().hex}"
        progress = server.work_done_progress
        try:
            await asyncio.wait_for(progress.create_async(token), PROGRESS_CREATE_TIMEOUT_S)
        except Exception:  # no progress bar is no reason not to run
            log.warning("window/workDoneProgress/create failed", exc_info=True)
            return cls(server, None)
        future = progress.tokens.get(token)
        if future is not None:
            future.add_done_callback(lambda f: cancel_event.set() if f.cancelled() else None)
        progress.begin(token, types.WorkDoneProgressBegin(
            title=title, cancellable=True, message="starting", percentage=0))
        return cls(server, token)

    def on_event(self, event: dict[str, Any]) -> None:
        if self.token is None:
            return
        if event.get("event") == "step-start":
            index, total = event.get("index", 0), event.get("total", 0) or 1
            self.server.work_done_progress.report(self.token, types.WorkDoneProgressReport(
                message=f"{event.get('node')} ({event.get('kind')}): step {index + 1} of {total}",
                percentage=min(100, int(100 * index / total)), cancellable=True))

    def end(self, message: str) -> None:
        if self.token is None:
            return
        token, self.token = self.token, None
        progress = self.server.work_done_progress
        progress.end(token, types.WorkDoneProgressEnd(message=message))
        progress.tokens.pop(token, None)


def delivery_warning(event: dict[str, Any]) -> str | None:
    """The warning a failed delivery of a run this editor advances shows (the runner's
    `delivery` event): the receipt's error and the setting that fixes it; None when ok."""
    receipt = event.get("receipt") if event.get("event") == "delivery" else None
    if not isinstance(receipt, dict) or receipt.get("ok") is True:
        return None
    where = receipt.get("target") or receipt.get("deliver")
    fix = ("set hwf.delivery.command (the channel command, argv) in the settings"
           if receipt.get("deliver") == "channel"
           else "the editor could not show the notification")
    return (f"Run {event.get('run_id')}: step {event.get('node')!r} was not delivered to "
            f"{where}: {receipt.get('error')}. To fix: {fix}; the step's output is kept "
            "in the run.")


def outcome_message(state: Any) -> str:
    """How a run stands after an operation, for the end of its progress."""
    if not isinstance(state, dict):
        return "done"
    status = state.get("status")
    pending = state.get("pending") if isinstance(state.get("pending"), dict) else {}
    if status in PARKED_MESSAGES:
        return PARKED_MESSAGES[status].format(node=pending.get("node"))
    if was_interrupted(state):
        return "interrupted: resume the run to go on"
    if status == "failed":
        return f"failed: {state.get('error')}"
    return str(status)


class RunManager:
    """Builds runners from the user's settings and runs their operations off the loop."""

    def __init__(self, server: HwfServer) -> None:
        self.server = server
        self.loop: asyncio.AbstractEventLoop | None = None
        self._active: dict[str, ActiveRun] = {}
        self._lock = threading.Lock()
        self._stores: dict[Path, RunStore] = {}
        self._designs: dict[Path, DesignStore] = {}

    # --- stores and runners (settings decide; a design never does) ----------

    def runs_root(self) -> Path:
        return self.server.settings.home() / RUNS_DIRNAME

    def run_store(self) -> RunStore:
        root = self.runs_root()
        store = self._stores.get(root)
        if store is None:  # opening sweeps old temp files: do it once per root
            store = self._stores[root] = RunStore(root)
        return store

    def design_store(self) -> DesignStore:
        root = self.server.settings.home() / DESIGNS_DIRNAME
        store = self._designs.get(root)
        if store is None:
            store = self._designs[root] = DesignStore(root)
        return store

    def runner(self, cancel_event: threading.Event | None = None,
               on_event: Callable[[dict[str, Any]], None] | None = None,
               interrupt: Interrupt | None = None) -> Runner:
        # imported here: the server creates its RunManager at start-up, the runner's
        # modules come on a thread after `initialized` (server.start_watching_runs)
        from hwf_lsp.workflow.delivery import Delivery
        from hwf_lsp.workflow.runner import Runner
        from hwf_lsp.workflow.seams import CommandAgentSeam

        settings = self.server.settings
        agent = CommandAgentSeam(list(settings.agent_command), hermes_home=str(settings.home())) \
            if settings.agent_command else None
        delivery = Delivery(
            notify=lambda text: self.show(types.MessageType.Info, text),
            channel_argv=list(settings.delivery_command) if settings.delivery_command else None,
        )
        return Runner(
            self.run_store(), agent=agent, delivery=delivery,
            allow_model_override=settings.model_gate().permits, on_event=on_event,
            cancel_event=cancel_event, designs=self.design_store(), interrupt=interrupt,
        )

    # --- talking to the client from any thread ------------------------------

    def call_on_loop(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run `fn(*args)` on the event loop: directly when already there."""
        loop = self.loop
        if loop is None:
            fn(*args)
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            fn(*args)
        elif not loop.is_closed():
            loop.call_soon_threadsafe(fn, *args)

    def show(self, kind: types.MessageType, text: str) -> None:
        self.call_on_loop(self.server.window_show_message,
                          types.ShowMessageParams(type=kind, message=text))

    # --- which runs are advancing here --------------------------------------

    def active(self, run_id: str) -> ActiveRun | None:
        with self._lock:
            return self._active.get(run_id)

    def _claim(self, run_id: str, active: ActiveRun) -> None:
        with self._lock:
            if run_id in self._active:
                raise RunBusyError(run_id)
            self._active[run_id] = active

    def _release(self, run_ids: list[str]) -> None:
        with self._lock:
            for run_id in run_ids:
                self._active.pop(run_id, None)

    # --- executing ------------------------------------------------------------

    def _events_to(self, progress: RunProgress) -> Callable[[dict[str, Any]], None]:
        """The runner's events (worker thread): progress, and a failed delivery's warning,
        shown where the run was started (this editor)."""
        def on_event(event: dict[str, Any]) -> None:
            self.call_on_loop(progress.on_event, event)
            warning = delivery_warning(event)
            if warning is not None:
                self.show(types.MessageType.Warning, warning)
        return on_event

    async def execute(self, title: str, work: Callable[[Runner, Callable[[str], None]], T],
                      run_id: str | None = None) -> T:
        """`work(runner, claim)` on a new thread, with progress; its result when it returns.

        `run_id` (resume, answer, respond) is claimed before the thread starts, so a second
        command on a run this server is advancing gets RunBusyError at once; a new run
        calls `claim(run_id)` as soon as it has an id.
        """
        loop = asyncio.get_running_loop()
        self.loop = loop
        active = ActiveRun()
        claimed: list[str] = []

        def claim(new_id: str) -> None:
            self._claim(new_id, active)
            claimed.append(new_id)

        if run_id is not None:
            claim(run_id)
        try:
            progress = await RunProgress.begin(self.server, title, active.cancel_event)
        except BaseException:
            self._release(claimed)
            raise
        runner = self.runner(active.cancel_event, self._events_to(progress), active.interrupt)
        done: asyncio.Future[T] = loop.create_future()
        active.done = done

        def finish(future: asyncio.Future[T]) -> None:
            self._release(claimed)
            if future.cancelled():
                progress.end("stopped")
            elif future.exception() is not None:
                progress.end(f"error: {future.exception()}")
            else:
                progress.end(outcome_message(future.result()))

        done.add_done_callback(finish)

        def settle(ok: bool, value: Any) -> None:
            if done.done():
                return
            if ok:
                done.set_result(value)
            else:
                done.set_exception(value)

        def target() -> None:
            try:
                result = work(runner, claim)
            except BaseException as exc:  # noqa: BLE001 - handed to the awaiting command
                ok, value = False, exc
            else:
                ok, value = True, result
            if not loop.is_closed():
                loop.call_soon_threadsafe(settle, ok, value)

        threading.Thread(target=target, name=f"hwf-run: {title}", daemon=True).start()
        return await asyncio.shield(done)

    async def interrupt_all(self) -> int:
        """Stop every run this server advances at a clean point, resumable (its agent is
        killed; the log says `interrupted`); wait for them up to SHUTDOWN_WAIT_S.  The count."""
        with self._lock:
            active = list({id(a): a for a in self._active.values()}.values())
        for run in active:
            run.interrupt.interrupt(SHUTDOWN_REASON)
        waiting = [asyncio.shield(run.done) for run in active if run.done is not None]
        if waiting:
            await asyncio.wait(waiting, timeout=SHUTDOWN_WAIT_S)
        return len(active)

    async def cancel_active(self, run_id: str) -> bool:
        """Stop a run this server is advancing; True when there was one (waits for it)."""
        active = self.active(run_id)
        if active is None:
            return False
        active.cancel_event.set()
        if active.done is not None:
            try:
                await asyncio.wait_for(asyncio.shield(active.done), CANCEL_WAIT_S)
            except Exception:  # its own command reports its own error
                log.debug("cancelled run %s ended with an error", run_id, exc_info=True)
        return True
