"""The debug run on a worker thread: the Runner's `before_step` hook is where it stops.

The adapter's main thread reads requests; the run advances on a worker thread
(`Runner.advance`, `answer`, `respond`, as `hwf` calls them).  Before each step the hook
checks the design file on disk (changed -> reported, stopped, never run stale), prints
logpoints, and stops when asked to (entry, a breakpoint, `next`, `pause`): stopping is the
worker waiting on a condition until the client says `continue`, `next` or goes away.
Going away sets the run's `Interrupt`: the runner then stops at that clean point and
persists the run as resumable (`hwf resume` finishes it), as Ctrl-C does to `hwf run`.
"""

from __future__ import annotations

import copy
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hwf_lsp.debug.breakpoints import NodeBreakpoint, decide
from hwf_lsp.debug.launch_args import LaunchConfig
from hwf_lsp.debug.pins import DEBUG_KEY, pin, replace_value
from hwf_lsp.debug.run_setup import create_debug_run, make_runner
from hwf_lsp.rules.run_facts import HELD_BEFORE_KEY, failed_step
from hwf_lsp.workflow.interrupts import Interrupt
from hwf_lsp.workflow.locks import RunLock
from hwf_lsp.workflow.paths import hermes_home
from hwf_lsp.workflow.runner import iso_utc
from hwf_lsp.workflow.stores import read_text_file

log = logging.getLogger(__name__)

PARKED = ("awaiting_approval", "awaiting_agent")
FINISHED = ("completed", "failed", "cancelled")

Send = Callable[[str, dict[str, Any]], None]
"""(event name, body): how the driver tells the client."""


@dataclass
class Stop:
    """Where the run stands still: before `node` (a hook stop) or parked at it."""

    node: str
    reason: str
    description: str
    parked: bool = False
    breakpoints: list[int] = field(default_factory=list)
    failed: bool = False
    """The run failed at `node`: shown for inspection; going on ends the session."""


class RunDriver:
    """One debug run: created at launch, advanced on a worker thread, stopped in the hook."""

    def __init__(self, config: LaunchConfig, send: Send, home: Path | None = None) -> None:
        self.config = config
        self.send = send
        self.home = home if home is not None else hermes_home()
        self.interrupt = Interrupt()
        self.cond = threading.Condition()
        self.breakpoints: list[NodeBreakpoint] = []
        self.state: dict[str, Any] = {}
        self.stop: Stop | None = None
        self.command: str | None = None
        self.stepping = False
        self.entry = config.stop_on_entry
        self.pause_requested = False
        self.no_debug = False
        """`noDebug` ("Run without debugging"): no breakpoint, entry or step stops."""
        self.stale: str | None = None
        """Why the design on disk no longer is the launched one (then nothing runs)."""
        self.answered: set[str] = set()
        self.worker: threading.Thread | None = None
        self.runner = make_runner(config, self.home, interrupt=self.interrupt,
                                  before_step=self._before_step, on_event=self._progress,
                                  notify=self._notify)
        self.runs = self.runner.runs

    def create_run(self) -> list[str]:
        """Create the (not yet advanced) run; notices for the user."""
        self.state, notices = create_debug_run(self.runner, self.config)
        return notices

    @property
    def run_id(self) -> str:
        return str(self.state.get("run_id"))

    # --- the worker ----------------------------------------------------------

    def start(self) -> None:
        self._work(self.runner.advance, self.run_id)

    def answer(self, choice: str) -> None:
        self._work(self.runner.answer, self.run_id, choice)

    def respond(self, value: Any, structured: bool) -> None:
        given = {"structured": value} if structured else {"output": value}
        self._work(self.runner.respond, self.run_id, **given)

    def _work(self, fn: Callable[..., dict[str, Any]], *args: Any, **kwargs: Any) -> None:
        with self.cond:
            self.stop = None

        def run() -> None:
            try:
                state = fn(*args, **kwargs)
            except Exception as exc:
                log.warning("the run could not go on", exc_info=True)
                self._output("stderr", f"{exc}\n")
                state = self._on_disk()
                if state is None or state.get("status") not in PARKED:
                    self._finished(state)
                    return
            self._after(state)

        self.worker = threading.Thread(target=run, name=f"hwf-debug-{self.run_id}",
                                       daemon=True)
        self.worker.start()

    def _on_disk(self) -> dict[str, Any] | None:
        try:
            return self.runs.load(self.run_id)
        except (OSError, ValueError):
            return None

    def _after(self, state: dict[str, Any]) -> None:
        self.state = state
        status = state.get("status")
        if status in PARKED:
            if self._auto_answer(state):
                return
            self._park(state)
        elif status == "failed" and not self.no_debug:
            node = failed_step(state) or ""
            self._output("stderr", f"run {self.run_id} failed: {state.get('error')}\n")
            self._stopped(Stop(node, "exception", f"failed: {state.get('error')}",
                               failed=True))
        elif status in FINISHED:
            self._finished(state)
        # else: interrupted (the client went away): resumable, nothing to tell

    def _auto_answer(self, state: dict[str, Any]) -> bool:
        """A test case answers its approvals itself, once each (as `hwf test` does)."""
        case = self.config.case
        pending = state.get("pending") or {}
        node = pending.get("node")
        if case is None or state.get("status") != "awaiting_approval" \
                or node not in case.answers or node in self.answered:
            return False
        self.answered.add(node)
        self._output("console", f"{node}: answered {case.answers[node]!r} (test case)\n")
        self.answer(case.answers[node])
        return True

    def _park(self, state: dict[str, Any]) -> None:
        pending = state.get("pending") or {}
        node = str(pending.get("node"))
        if state["status"] == "awaiting_approval":
            options = " | ".join(map(str, pending.get("options") or []))
            description = f"waiting for approval: {pending.get('question', '')}"
            hint = f"answer it in the debug console: answer <{options}>"
        else:
            description = f"waiting for agent {node!r}"
            hint = "give its result in the debug console: respond <JSON or text>"
        self._output("console", f"{description} — {hint}\n")
        self._stopped(Stop(node, "pause", description, parked=True))

    def _finished(self, state: dict[str, Any] | None) -> None:
        status = state.get("status") if state else "stopped"
        error = f": {state.get('error')}" if state and state.get("error") else ""
        self._output("console", f"run {self.run_id} {status}{error}\n")
        self.send("exited", {"exitCode": 0 if status == "completed" else 1})
        self.send("terminated", {})

    # --- the hook (worker thread) ---------------------------------------------

    def _before_step(self, state: dict[str, Any], node: dict[str, Any]) -> None:
        self.state = state
        if self.interrupt.is_set():
            return  # the client left: the runner stops here, resumable
        node_id = str(node.get("id"))
        stop = self._stale_stop(node_id) or self._wanted_stop(state, node_id)
        if stop is None:
            return
        self._hold(state, node_id)
        self._stopped(stop)
        with self.cond:
            while self.command is None:
                self.cond.wait()
            command, self.command = self.command, None
            self.stop = None
            self.stepping = command == "next"
            self.pause_requested = False
        self._hold(state, None)

    def _hold(self, state: dict[str, Any], node_id: str | None) -> None:
        """Say in the run file which step the debugger holds the run before (None: no
        more), so every surface shows that step as not started, not as running."""
        mark = state.setdefault(DEBUG_KEY, self.config.marker())
        if node_id is None:
            mark.pop(HELD_BEFORE_KEY, None)
        else:
            mark[HELD_BEFORE_KEY] = node_id
        self.runs.save(state)

    def _stale_stop(self, node_id: str) -> Stop | None:
        if self.stale is None:
            try:
                text = read_text_file(self.config.design_path)
            except (OSError, ValueError) as exc:
                text = f"<unreadable: {exc}>"
            if text == self.config.design_text:
                return None
            self.stale = (f"the design {self.config.design_path} changed on disk since the "
                          "launch: the run stops here and runs nothing of the new text; "
                          "restart the debug session to debug the new design")
            self._output("important", self.stale + "\n")
        return Stop(node_id, "exception", "the design changed on disk")

    def _wanted_stop(self, state: dict[str, Any], node_id: str) -> Stop | None:
        if self.no_debug:
            return None
        hit = decide(self.breakpoints, node_id, state.get("outputs") or {})
        for line in hit.logs:
            self._output("console", line + "\n")
        if self.entry:
            self.entry = False
            return Stop(node_id, "entry", f"before {node_id!r} (entry)")
        if hit.stop_ids:
            return Stop(node_id, "breakpoint", f"breakpoint before {node_id!r}",
                        breakpoints=hit.stop_ids)
        if self.stepping:
            return Stop(node_id, "step", f"before {node_id!r}")
        if self.pause_requested:
            return Stop(node_id, "pause", f"paused before {node_id!r}")
        return None

    def _stopped(self, stop: Stop) -> None:
        with self.cond:
            self.stop = stop
        body: dict[str, Any] = {"reason": stop.reason, "description": stop.description,
                                "threadId": 1, "allThreadsStopped": True,
                                "text": stop.node}
        if stop.breakpoints:
            body["hitBreakpointIds"] = stop.breakpoints
        self.send("stopped", body)

    # --- from the session (main thread) ----------------------------------------

    def cannot_resume(self) -> str | None:
        """Why `continue` or `next` cannot go on now; None when they can (`release`)."""
        with self.cond:
            stop = self.stop
            if stop is None:
                return "the run is not stopped"
            if self.stale is not None:
                return self.stale
            if stop.parked:
                return (f"{stop.description}: answer it in the debug console "
                        "(`answer <option>` or `respond <JSON or text>`)")
        return None

    def release(self, command: str) -> None:
        """Let the worker go on: `continue` or `next` (sent after the request's response,
        so the client never reads the next `stopped` before it).  At a failure, the end."""
        with self.cond:
            if self.stop is not None and self.stop.failed:
                self.stop = None
                self._finished(self.state)
                return
            self.command = command
            self.cond.notify_all()

    def pause(self) -> None:
        with self.cond:
            self.pause_requested = True

    def pin_output(self, node: str, path: tuple[str | int, ...], value: Any) -> Any:
        """`setVariable`: the run's output of `node` (at `path`) becomes `value` for the
        rest of the run, recorded as the user's edit in the run file (persisted now).
        Stopped before a step, the worker holds the run's lock and waits: the live state is
        changed.  Parked, the run is on disk: it is changed under its lock."""
        with self.cond:
            stop = self.stop
            if stop is None:
                raise ValueError("the run is not stopped")
            if stop.failed:
                raise ValueError(f"run {self.run_id} failed: nothing runs after an edit; "
                                 f"replay it (launch with \"replay\": \"{self.run_id}\")")
            if not stop.parked:
                return self._pin(self.state, node, path, value)
            with RunLock(self.runs.root, self.run_id):
                on_disk = self.runs.load(self.run_id)
                if (on_disk.get("status"), on_disk.get("cursor")) != (
                        self.state.get("status"), self.state.get("cursor")):
                    raise ValueError("the run moved on outside the debugger (answered or "
                                     "resumed elsewhere): restart the debug session")
                old = self._pin(on_disk, node, path, value)
            replace_value(self.state["outputs"], node, path, copy.deepcopy(value))  # as shown
            return old

    def _pin(self, state: dict[str, Any], node: str, path: tuple[str | int, ...],
             value: Any) -> Any:
        old = pin(state, node, path, value, iso_utc(self.runner.clock()),
                  self.config.marker())
        self.runs.save(state)
        return old

    def disconnect(self, wait_s: float = 10.0) -> None:
        """The client left: stop at a clean point, the run resumable; wait for the worker."""
        self.interrupt.interrupt("the debugger disconnected")
        with self.cond:
            self.command = "disconnect"
            self.cond.notify_all()
        if self.worker is not None:
            self.worker.join(wait_s)

    def _progress(self, event: dict[str, Any]) -> None:
        """One console line per step that ends (the runner's events), as `hwf run` prints."""
        if event.get("event") == "step-finish" and event.get("outcome") not in (
                "parked", "interrupted"):
            self._output("console", f"#{event.get('index', 0) + 1}/{event.get('total')} "
                         f"{event.get('node')} ({event.get('kind')}): {event.get('outcome')}\n")
        elif event.get("event") == "step-answered":
            self._output("console", f"{event.get('node')}: {event.get('kind')} answered\n")

    def _notify(self, text: str) -> None:
        self._output("console", f"[notification] {text}\n")

    def _output(self, category: str, text: str) -> None:
        self.send("output", {"category": category, "output": text})
