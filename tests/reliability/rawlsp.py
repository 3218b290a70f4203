"""A small LSP client over raw stdio framing, for the cases a well-behaved client cannot send.

pytest-lsp structures every message before sending it, so it cannot send a
request whose params are wrong, a body that is not JSON, or a header that lies.
This client writes bytes, reads frames on a thread, answers the server's own
requests (configuration, registration, progress) with `null`, and lets a test
wait for the response to one id.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

SERVER_ARGV = [sys.executable, "-m", "hwf_lsp"]


def frame(body: bytes | str) -> bytes:
    """One LSP frame: Content-Length header (in bytes) and the body."""
    data = body.encode("utf-8", "surrogatepass") if isinstance(body, str) else body
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


class RawLsp:
    """One server process and the messages it sent us."""

    def __init__(self, *, env: dict[str, str] | None = None, cwd: str | Path | None = None,
                 argv: list[str] | None = None, preexec_fn: Any = None) -> None:
        self._stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            argv or SERVER_ARGV, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self._stderr, env=env, cwd=cwd, preexec_fn=preexec_fn,
        )
        self._ids = itertools.count(1)
        self._lock = threading.Condition()
        self.responses: dict[Any, dict] = {}
        self.notifications: list[dict] = []
        self.server_requests: list[dict] = []
        self.frames_read = 0
        self.protocol_errors: list[str] = []
        self._write_lock = threading.Lock()
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()

    # --- writing ------------------------------------------------------------
    def send_bytes(self, data: bytes) -> None:
        with self._write_lock:
            assert self.proc.stdin is not None
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

    def send(self, message: dict) -> None:
        self.send_bytes(frame(json.dumps(message)))

    def next_id(self) -> int:
        return next(self._ids)

    def request_nowait(self, method: str, params: Any = None, *, msg_id: Any = None) -> Any:
        msg_id = self.next_id() if msg_id is None else msg_id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return msg_id

    def request(self, method: str, params: Any = None, *, timeout: float = 30.0,
                msg_id: Any = None) -> dict:
        return self.wait_response(self.request_nowait(method, params, msg_id=msg_id), timeout)

    def notify(self, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    # --- reading ------------------------------------------------------------
    def wait_response(self, msg_id: Any, timeout: float = 30.0) -> dict:
        """The response to `msg_id`; AssertionError if none arrives in time (= unanswered)."""
        key = json.dumps(msg_id)
        deadline = time.monotonic() + timeout
        with self._lock:
            while key not in self.responses:
                left = deadline - time.monotonic()
                if left <= 0 or (self.proc.poll() is not None and not self._reader.is_alive()):
                    raise AssertionError(
                        f"no response to id {msg_id!r} within {timeout:g} s "
                        f"(server alive: {self.alive()}); stderr tail: {self.stderr_tail()}"
                    )
                self._lock.wait(min(left, 0.2))
            return self.responses.pop(key)

    def wait_notification(self, method: str, predicate=lambda params: True,
                          timeout: float = 30.0) -> dict:
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                for message in self.notifications:
                    if message.get("method") == method and predicate(message.get("params")):
                        return message
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no {method} notification within {timeout:g} s")
                self._lock.wait(min(left, 0.2))

    def _read_frame(self) -> bytes | None:
        stdout = self.proc.stdout
        assert stdout is not None
        length = None
        while True:
            line = stdout.readline()
            if not line:
                return None
            if line in (b"\r\n", b"\n"):
                if length is None:
                    self.protocol_errors.append("frame without Content-Length")
                    continue
                break
            name, _, value = line.decode("ascii", "replace").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        body = stdout.read(length)
        return body if len(body) == length else None

    def _read_loop(self) -> None:
        while True:
            body = self._read_frame()
            if body is None:
                with self._lock:
                    self._lock.notify_all()
                return
            try:
                message = json.loads(body)
            except ValueError as exc:
                self.protocol_errors.append(f"server sent invalid JSON: {exc}")
                continue
            with self._lock:
                self.frames_read += 1
                if "method" in message and "id" in message:
                    self.server_requests.append(message)
                    reply = {"jsonrpc": "2.0", "id": message["id"], "result": None}
                    threading.Thread(target=self.send, args=(reply,), daemon=True).start()
                elif "method" in message:
                    self.notifications.append(message)
                else:
                    self.responses[json.dumps(message.get("id"))] = message
                self._lock.notify_all()

    # --- life ---------------------------------------------------------------
    def alive(self) -> bool:
        return self.proc.poll() is None

    def stderr_tail(self, chars: int = 2000) -> str:
        try:
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - chars))
            return self._stderr.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""

    def initialize(self, root: Path | None = None, capabilities: dict | None = None,
                   options: Any = None) -> dict:
        params: dict[str, Any] = {"processId": os.getpid(), "capabilities": capabilities or {},
                                  "rootUri": root.as_uri() if root else None}
        if options is not None:
            params["initializationOptions"] = options
        result = self.request("initialize", params)
        self.notify("initialized", {})
        return result

    def close(self, timeout: float = 10.0) -> int | None:
        """Shutdown + exit if the server is alive; kill it if it does not go; its exit code."""
        if self.alive():
            try:
                self.request("shutdown", timeout=timeout)
                self.notify("exit")
            except (AssertionError, BrokenPipeError, OSError):
                pass
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()  # type: ignore[union-attr]
            except OSError:
                pass
        self._stderr.close()
        return self.proc.returncode

    def __enter__(self) -> RawLsp:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.alive():
            self.close()


def open_params(uri: str, text: str, version: int = 1) -> dict:
    return {"textDocument": {"uri": uri, "languageId": "json", "version": version, "text": text}}


def full_change_params(uri: str, text: str, version: int) -> dict:
    return {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}


def position_params(uri: str, line: int = 0, character: int = 0) -> dict:
    return {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}}
