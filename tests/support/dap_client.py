"""A small Debug Adapter Protocol client over stdio, for the tests of `hwf debug-adapter`.

It starts the adapter as a subprocess (`python -m hwf_lsp.cli debug-adapter`), reads its
frames on a thread, and lets a test send requests and wait for responses and events.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 30.0


class DapClient:
    def __init__(self, home: Path, env: dict[str, str] | None = None,
                 cwd: Path | None = None) -> None:
        full_env = {**os.environ, "HERMES_HOME": str(home), "PYTHONPATH": str(ROOT)}
        full_env.pop("HWF_AGENT_COMMAND", None)
        full_env.pop("HWF_DELIVERY_COMMAND", None)
        full_env.update(env or {})
        self.process = subprocess.Popen(
            [sys.executable, "-m", "hwf_lsp.cli", "debug-adapter"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=full_env,
            cwd=str(cwd or ROOT))
        self.seq = 0
        self.inbox: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.events: list[dict[str, Any]] = []
        """Every event seen so far, in order."""
        self.responses: dict[int, dict[str, Any]] = {}
        self.arrivals: list[str] = []
        """Every message as it arrived: `response <request seq>` or `event <name>`."""
        threading.Thread(target=self._read, daemon=True).start()

    # --- wire ----------------------------------------------------------------

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    self.inbox.put(None)
                    return
                if line.strip() == b"":
                    break
                name, _, value = line.decode().partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            assert length is not None, "a frame without Content-Length"
            self.inbox.put(json.loads(stream.read(length)))

    def send_raw(self, data: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def send(self, command: str, arguments: dict[str, Any] | None = None) -> int:
        self.seq += 1
        body = json.dumps({"seq": self.seq, "type": "request", "command": command,
                           "arguments": arguments or {}}).encode()
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        return self.seq

    def _pump(self, timeout: float) -> dict[str, Any]:
        message = self.inbox.get(timeout=timeout)
        if message is None:
            raise EOFError("the adapter closed its stdout: "
                           + (self.stderr_text() if self.process.poll() is not None else ""))
        self.arrivals.append(f"response {message.get('request_seq')}"
                             if message.get("type") == "response"
                             else f"{message.get('type')} {message.get('event')}")
        if message.get("type") == "event":
            self.events.append(message)
        elif message.get("type") == "response":
            self.responses[message["request_seq"]] = message
        return message

    # --- what tests call -------------------------------------------------------

    def request(self, command: str, arguments: dict[str, Any] | None = None,
                timeout: float = TIMEOUT_S) -> dict[str, Any]:
        """Send a request and wait for its response (events meanwhile are kept)."""
        seq = self.send(command, arguments)
        while seq not in self.responses:
            self._pump(timeout)
        return self.responses[seq]

    def ok(self, command: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        """The body of a successful response (fails the test otherwise)."""
        response = self.request(command, arguments)
        assert response["success"], response
        return response.get("body") or {}

    def wait_event(self, name: str, timeout: float = TIMEOUT_S, after: int = 0
                   ) -> dict[str, Any]:
        """The body of the first `name` event at index >= `after` in `events`."""
        return self.wait_any((name,), timeout, after)[1]

    def wait_any(self, names: tuple[str, ...], timeout: float = TIMEOUT_S, after: int = 0
                 ) -> tuple[str, dict[str, Any]]:
        """(name, body) of the first event named in `names` at index >= `after`."""
        while True:
            for event in self.events[after:]:
                if event["event"] in names:
                    return event["event"], event.get("body") or {}
            self._pump(timeout)

    def mark(self) -> int:
        """The current event count: pass it as `after` to wait for a new event."""
        return len(self.events)

    def output(self) -> str:
        return "".join(e["body"].get("output", "") for e in self.events
                       if e["event"] == "output")

    def stderr_text(self) -> str:
        assert self.process.stderr is not None
        return self.process.stderr.read().decode(errors="replace")

    def close(self) -> int:
        """End stdin and wait for the adapter to exit; its exit code."""
        try:
            if self.process.stdin:
                self.process.stdin.close()
        except OSError:
            pass
        try:
            return self.process.wait(timeout=TIMEOUT_S)
        finally:
            if self.process.poll() is None:
                self.process.kill()

    # --- a session in one call ---------------------------------------------------

    def start(self, launch: dict[str, Any], breakpoints: dict[str, list[dict]] | None = None,
              ) -> dict[str, Any]:
        """initialize, launch, setBreakpoints per path, configurationDone; the launch
        response (a failed launch is returned, not raised)."""
        self.ok("initialize", {"adapterID": "hwf", "linesStartAt1": True,
                               "columnsStartAt1": True})
        response = self.request("launch", launch)
        if not response["success"]:
            return response
        for path, bps in (breakpoints or {}).items():
            self.ok("setBreakpoints", {"source": {"path": path}, "breakpoints": bps})
        self.ok("configurationDone")
        return response


# --- what a debug run left behind ----------------------------------------------


def hwf(home: Path, *args: str, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[str]:
    """`hwf ARGS` with this $HERMES_HOME."""
    return subprocess.run([sys.executable, "-m", "hwf_lsp.cli", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=60,
                          env={**os.environ, "HERMES_HOME": str(home),
                               "PYTHONPATH": str(ROOT), **(env or {})})


def run_file(home: Path, run_id: str | None = None) -> dict[str, Any]:
    """The run file (the only one when no id is given)."""
    runs = sorted((home / "workflow-runs").glob("*.json"))
    path = home / "workflow-runs" / f"{run_id}.json" if run_id else runs[-1]
    if run_id is None:
        assert len(runs) == 1, runs
    return json.loads(path.read_text(encoding="utf-8"))


def line_of(path: Path, needle: str) -> int:
    """The 1-based line of the first line holding `needle`."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} not in {path}")


def called(calls: Path) -> list[str]:
    return calls.read_text(encoding="utf-8").split() if calls.exists() else []
