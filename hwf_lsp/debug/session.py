"""One debug session: the DAP requests, answered on the adapter's main thread.

initialize -> launch (the run is created, not advanced) -> setBreakpoints ... ->
configurationDone (the run starts on its worker thread) -> stopped/continue/next/... ->
terminated, or disconnect (the run is left resumable).  Each handler takes the request's
arguments and returns the response body, or raises `RequestFailed` (an error response
with `showUser`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hwf_lsp.debug.breakpoints import NodeBreakpoint, verify, verify_names
from hwf_lsp.debug.dap_framing import FrameWriter
from hwf_lsp.debug.driver import RunDriver
from hwf_lsp.debug.launch_args import LaunchConfig, LaunchError, parse_launch
from hwf_lsp.debug.node_lines import node_lines
from hwf_lsp.debug.repl import ReplError, run_command
from hwf_lsp.debug.values import parse_given, shown
from hwf_lsp.debug.views import Container, VariableTable, node_input, stack_frames
from hwf_lsp.workflow.stores import read_text_file

log = logging.getLogger(__name__)

THREAD_ID = 1
CAPABILITIES: dict[str, Any] = {
    "supportsConfigurationDoneRequest": True,
    "supportsSetVariable": True,
    "supportsConditionalBreakpoints": True,
    "supportsLogPoints": True,
    "supportsFunctionBreakpoints": True,
    "supportsEvaluateForHovers": True,
    "supportsTerminateRequest": True,
    "supportTerminateDebuggee": False,
    "supportsRestartRequest": False,
    "exceptionBreakpointFilters": [],
}


class RequestFailed(Exception):
    """An error response: `message` shown to the user."""


class Session:
    def __init__(self, writer: FrameWriter, home: Path | None = None) -> None:
        self.writer = writer
        self.home = home
        self.line_base = 1
        self.config: LaunchConfig | None = None
        self.driver: RunDriver | None = None
        self.configured = False
        self.breakpoints: dict[Path, list[NodeBreakpoint]] = {}
        """Line breakpoints by the resolved path of their file."""
        self.by_name: list[NodeBreakpoint] = []
        """Function breakpoints: a step id as their name."""
        self.next_breakpoint_id = 1
        self.variables = VariableTable()
        self.done = False
        self.later: list[Callable[[], None]] = []
        """What a handler leaves to do once its response is written (start or release
        the worker): the client reads the response before the events that follow."""
        self.handlers: dict[str, Callable[[dict[str, Any]], Any]] = {
            "initialize": self.initialize, "launch": self.launch, "attach": self.attach,
            "setBreakpoints": self.set_breakpoints,
            "setFunctionBreakpoints": self.set_function_breakpoints,
            "setExceptionBreakpoints": lambda _: {"breakpoints": []},
            "configurationDone": self.configuration_done, "threads": self.threads,
            "stackTrace": self.stack_trace, "scopes": self.scopes,
            "variables": self.variables_request, "setVariable": self.set_variable,
            "continue": self.continue_, "next": self.next_, "stepIn": self.next_,
            "stepOut": self.next_, "pause": self.pause, "evaluate": self.evaluate,
            "disconnect": self.disconnect, "terminate": self.terminate,
        }

    # --- plumbing -------------------------------------------------------------

    def handle(self, message: dict[str, Any]) -> None:
        """Answer one message; a request we do not know is an error response."""
        if message.get("type") != "request":
            return
        command = message.get("command")
        handler = self.handlers.get(command) if isinstance(command, str) else None
        arguments = message.get("arguments")
        arguments = arguments if isinstance(arguments, dict) else {}
        self.later.clear()
        try:
            if handler is None:
                raise RequestFailed(f"the workflow debugger does not support {command!r}")
            body = handler(arguments)
        except RequestFailed as exc:
            self.respond(message, None, str(exc))
            return
        except Exception as exc:
            log.exception("request %s failed", command)
            self.respond(message, None, f"internal error: {type(exc).__name__}: {exc}")
            return
        self.respond(message, body)
        if command == "initialize":
            self.event("initialized", {})
        for then in self.later:
            then()

    def respond(self, request: dict[str, Any], body: Any, error: str | None = None) -> None:
        response: dict[str, Any] = {"type": "response", "request_seq": request.get("seq"),
                                    "command": request.get("command"),
                                    "success": error is None}
        if error is not None:
            response["message"] = error
            response["body"] = {"error": {"id": 1, "format": error.replace("{", "{{")
                                          .replace("}", "}}"), "showUser": True}}
        elif body is not None:
            response["body"] = body
        self.writer.write(response)

    def event(self, name: str, body: dict[str, Any]) -> None:
        if name == "stopped":
            self.variables.reset()
        self.writer.write({"type": "event", "event": name, "body": body})

    def _driver(self) -> RunDriver:
        if self.driver is None:
            raise RequestFailed("no run: launch a design first")
        return self.driver

    # --- set-up ---------------------------------------------------------------

    def initialize(self, arguments: dict[str, Any]) -> dict[str, Any]:
        self.line_base = 0 if arguments.get("linesStartAt1") is False else 1
        return CAPABILITIES

    def attach(self, arguments: dict[str, Any]) -> None:
        raise RequestFailed("the workflow debugger launches runs; it does not attach "
                            "(use a launch configuration)")

    def launch(self, arguments: dict[str, Any]) -> None:
        if self.driver is not None:
            raise RequestFailed("this session already launched a run")
        try:
            config = parse_launch(arguments)
            driver = RunDriver(config, self.event, self.home)
            notices = driver.create_run()
        except LaunchError as exc:
            raise RequestFailed(f"invalid launch argument {exc}") from None
        self.config, self.driver = config, driver
        driver.no_debug = arguments.get("noDebug") is True
        self._arm()
        self.event("thread", {"reason": "started", "threadId": THREAD_ID})
        for notice in notices:
            self.event("output", {"category": "console", "output": f"note: {notice}\n"})
        self.event("output", {"category": "console", "output":
                              f"debug run {driver.run_id} of {config.name} "
                              f"({driver.runs.path(driver.run_id)})\n"})
        if self.configured:
            self.later.append(driver.start)

    def set_breakpoints(self, arguments: dict[str, Any]) -> dict[str, Any]:
        source = arguments.get("source") if isinstance(arguments.get("source"), dict) else {}
        path = source.get("path")
        requested = arguments.get("breakpoints")
        requested = requested if isinstance(requested, list) else []
        if not isinstance(path, str):
            return {"breakpoints": [{"verified": False, "message": "no source path"}
                                    for _ in requested]}
        try:
            text = read_text_file(path)
        except (OSError, ValueError) as exc:
            return {"breakpoints": [{"verified": False, "message": f"cannot read {path}: {exc}"}
                                    for _ in requested]}
        shown_bps, kept = verify(requested, node_lines(text), self.line_base,
                                 self.next_breakpoint_id)
        self.next_breakpoint_id += len(requested)
        self.breakpoints[Path(path).resolve()] = kept
        self._arm()
        return {"breakpoints": shown_bps}

    def set_function_breakpoints(self, arguments: dict[str, Any]) -> dict[str, Any]:
        requested = arguments.get("breakpoints")
        requested = requested if isinstance(requested, list) else []
        config = self.config
        shown_bps, self.by_name = verify_names(
            requested, config.plan_ids if config else None, config.name if config else "",
            self.next_breakpoint_id)
        self.next_breakpoint_id += len(requested)
        self._arm()
        return {"breakpoints": shown_bps}

    def _arm(self) -> None:
        """The run's breakpoints: the lines of the launched design's file, and by name."""
        if self.config is not None and self.driver is not None:
            self.driver.breakpoints = [
                *self.breakpoints.get(self.config.design_path.resolve(), []), *self.by_name]

    def configuration_done(self, arguments: dict[str, Any]) -> None:
        self.configured = True
        if self.driver is not None and self.driver.worker is None:
            self.later.append(self.driver.start)

    # --- where the run stands ---------------------------------------------------

    def threads(self, arguments: dict[str, Any]) -> dict[str, Any]:
        if self.driver is None:
            return {"threads": []}
        name = f"{self.driver.config.name} run {self.driver.run_id}"
        return {"threads": [{"id": THREAD_ID, "name": name}]}

    def _frames(self) -> list[dict[str, Any]]:
        driver = self._driver()
        stop = driver.stop
        if stop is None:
            return []
        config = driver.config
        source = {"name": config.design_path.name, "path": str(config.design_path)}
        return stack_frames(config.design, stop.node, node_lines(config.design_text),
                            source, self.line_base)

    def stack_trace(self, arguments: dict[str, Any]) -> dict[str, Any]:
        frames = self._frames()
        start = arguments.get("startFrame") if isinstance(arguments.get("startFrame"), int) \
            else 0
        levels = arguments.get("levels") if isinstance(arguments.get("levels"), int) else 0
        page = frames[start:start + levels] if levels else frames[start:]
        return {"stackFrames": page, "totalFrames": len(frames)}

    def scopes(self, arguments: dict[str, Any]) -> dict[str, Any]:
        driver = self._driver()
        frames = self._frames()
        frame = next((f for f in frames if f["id"] == arguments.get("frameId")), None)
        if frame is None:
            raise RequestFailed("no such frame: the run is not stopped there")
        node_id = frame["name"].rsplit(" (", 1)[0]
        node = next(n for n in driver.config.design["nodes"]
                    if isinstance(n, dict) and n.get("id") == node_id)
        state = driver.state
        found = [self._scope(f"Input of {node_id}", node_input(state, node), "arguments"),
                 self._scope("Outputs", state.get("outputs") or {}, "locals", outputs=True),
                 self._scope("Answers", state.get("answers") or {}, "locals")]
        if state.get("pending"):
            title = "Pending approval" if state["pending"].get("kind") == "approval" \
                else "Pending agent"
            found.append(self._scope(title, state["pending"], "locals"))
        return {"scopes": found}

    def _scope(self, name: str, value: Any, hint: str, outputs: bool = False
               ) -> dict[str, Any]:
        handle = self.variables.handle(Container(value, outputs_root=outputs))
        size = len(value) if isinstance(value, dict | list) else 0
        return {"name": name, "variablesReference": handle, "expensive": False,
                "presentationHint": hint, "namedVariables": size}

    def variables_request(self, arguments: dict[str, Any]) -> dict[str, Any]:
        container = self.variables.get(arguments.get("variablesReference"))
        if container is None:
            return {"variables": []}
        return {"variables": self.variables.children(container)}

    def set_variable(self, arguments: dict[str, Any]) -> dict[str, Any]:
        driver = self._driver()
        container = self.variables.get(arguments.get("variablesReference"))
        name, given = arguments.get("name"), arguments.get("value")
        if container is None or not isinstance(name, str) or not isinstance(given, str):
            raise RequestFailed("setVariable needs a variable shown since the last stop")
        if container.outputs_root:
            node, path = name, ()
        elif container.node is not None:
            key: str | int = int(name) if isinstance(container.value, list) else name
            node, path = container.node, (*container.path, key)
        else:
            raise RequestFailed("only the run's outputs can be changed (the input, answers "
                                "and pending scopes are read-only)")
        value = parse_given(given)
        try:
            driver.pin_output(node, path, value)
        except ValueError as exc:
            raise RequestFailed(str(exc)) from None
        return self.variables.describe(value, node, path)

    # --- moving on ----------------------------------------------------------------

    def _resume(self, command: str) -> None:
        driver = self._driver()
        problem = driver.cannot_resume()
        if problem is not None:
            raise RequestFailed(problem)
        self.later.append(lambda: driver.release(command))

    def continue_(self, arguments: dict[str, Any]) -> dict[str, Any]:
        self._resume("continue")
        return {"allThreadsContinued": True}

    def next_(self, arguments: dict[str, Any]) -> None:
        self._resume("next")

    def pause(self, arguments: dict[str, Any]) -> None:
        self._driver().pause()

    def evaluate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        expression = arguments.get("expression")
        if not isinstance(expression, str):
            raise RequestFailed("evaluate needs an expression")
        try:
            result = run_command(expression, self.driver)
        except ReplError as exc:
            raise RequestFailed(str(exc)) from None
        if result.resume is not None:
            self.later += [lambda: self.event("continued", {"threadId": THREAD_ID,
                                                            "allThreadsContinued": True}),
                           result.resume]
        handle = 0
        if isinstance(result.value, dict | list) and result.value:
            handle = self.variables.handle(Container(result.value))
        return {"result": shown(result.text), "variablesReference": handle}

    def terminate(self, arguments: dict[str, Any]) -> None:
        """Stop the run at a clean point, resumable; the client then disconnects."""
        if self.driver is not None:
            self.driver.disconnect()
        self.event("terminated", {})

    def disconnect(self, arguments: dict[str, Any]) -> None:
        """The run stops at a clean point, resumable (`hwf resume`); the session ends."""
        if self.driver is not None:
            self.driver.disconnect()
        self.done = True
