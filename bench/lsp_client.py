"""A minimal asyncio LSP client over stdio, written for the benchmark.

Why not pygls's client: the bench must time the wire, not a client library's own parsing and
type conversion, and it must talk identically to a Python server and a Node server.  This
client speaks JSON-RPC with Content-Length framing, answers the few requests servers send
(configuration, registration, progress) and records every publishDiagnostics with the time it
arrived, so a caller can wait for the publish of one document version.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

READ_LIMIT = 64 * 1024 * 1024
"""StreamReader limit: big enough for a header line; bodies are read with readexactly."""


class LspError(RuntimeError):
    """The server answered a request with an error, or went away."""


@dataclass(slots=True)
class Publish:
    """One textDocument/publishDiagnostics as received."""

    uri: str
    version: int | None
    count: int
    at: float
    """time.perf_counter() when the message was fully read."""
    seq: int
    """Arrival order among all publishes of this client."""
    sample: tuple[str, ...] = ()
    """The first few messages, to show what a server found."""


@dataclass(slots=True)
class _Waiter:
    uri: str
    version: int | None
    after_seq: int
    future: asyncio.Future[Publish]


@dataclass
class LspClient:
    """One server process and the conversation with it."""

    argv: list[str]
    cwd: str | None = None
    env: dict[str, str] | None = None
    configuration: Callable[[dict[str, Any]], Any] = lambda item: None
    """Answer for one item of a workspace/configuration request."""
    proc: asyncio.subprocess.Process | None = None
    publishes: list[Publish] = field(default_factory=list)
    latest_diagnostics: dict[str, list[Any]] = field(default_factory=dict)
    """uri -> the diagnostics of its newest publish, as received (kept by reference: no cost)."""
    stderr_tail: bytearray = field(default_factory=bytearray)
    _next_id: int = 0
    _pending: dict[int, asyncio.Future[Any]] = field(default_factory=dict)
    _waiters: list[_Waiter] = field(default_factory=list)
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)
    spawned_at: float = 0.0

    # --- process ------------------------------------------------------------

    async def start(self) -> None:
        env = dict(os.environ, **(self.env or {}))
        self.spawned_at = time.perf_counter()
        self.proc = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=self.cwd,
            env=env,
            limit=READ_LIMIT,
        )
        self._tasks.append(asyncio.create_task(self._read_loop()))
        self._tasks.append(asyncio.create_task(self._drain_stderr()))

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def peak_rss_kb(self) -> int | None:
        """VmHWM of the server process (peak resident set), in KiB; None if unreadable."""
        try:
            with open(f"/proc/{self.pid}/status", encoding="ascii") as status:
                for line in status:
                    if line.startswith("VmHWM:"):
                        return int(line.split()[1])
        except OSError:
            return None
        return None

    async def stop(self, timeout: float = 5.0) -> None:
        """shutdown + exit, then make sure the process is gone."""
        proc = self.proc
        if proc is None:
            return
        if proc.returncode is None:
            with contextlib.suppress(Exception):
                await self.request("shutdown", None, timeout=timeout)
                await self.notify("exit", None)
            try:
                await asyncio.wait_for(proc.wait(), timeout)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks.clear()

    # --- wire ---------------------------------------------------------------

    @staticmethod
    def encode(message: dict[str, Any]) -> bytes:
        body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        return b"Content-Length: %d\r\n\r\n" % len(body) + body

    async def send_raw(self, frame: bytes) -> float:
        """Write one pre-encoded frame; returns the perf_counter just before writing."""
        assert self.proc is not None and self.proc.stdin is not None
        started = time.perf_counter()
        self.proc.stdin.write(frame)
        await self.proc.stdin.drain()
        return started

    def request_frame(self, method: str, params: Any) -> tuple[int, bytes]:
        self._next_id += 1
        return self._next_id, self.encode(
            {"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params}
        )

    def notification_frame(self, method: str, params: Any) -> bytes:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        return self.encode(message)

    async def request(self, method: str, params: Any, timeout: float = 30.0) -> Any:
        result, _ = await self.timed_request(method, params, timeout)
        return result

    async def timed_request(
        self, method: str, params: Any, timeout: float = 30.0
    ) -> tuple[Any, float]:
        """Send a request; return (result, seconds from write to the response read)."""
        request_id, frame = self.request_frame(method, params)
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        started = await self.send_raw(frame)
        try:
            result, answered_at = await asyncio.wait_for(future, timeout)
        finally:
            self._pending.pop(request_id, None)
        return result, answered_at - started

    async def notify(self, method: str, params: Any) -> float:
        return await self.send_raw(self.notification_frame(method, params))

    # --- publishes ------------------------------------------------------------

    def last_seq(self) -> int:
        return self.publishes[-1].seq if self.publishes else 0

    async def wait_publish(
        self, uri: str, version: int | None, after_seq: int, timeout: float
    ) -> Publish:
        """The first publish for `uri` after `after_seq` (with `version`, unless None)."""
        for publish in self.publishes:
            if publish.seq > after_seq and self._matches(publish, uri, version):
                return publish
        future: asyncio.Future[Publish] = asyncio.get_running_loop().create_future()
        waiter = _Waiter(uri, version, after_seq, future)
        self._waiters.append(waiter)
        try:
            return await asyncio.wait_for(future, timeout)
        finally:
            if waiter in self._waiters:
                self._waiters.remove(waiter)

    @staticmethod
    def _matches(publish: Publish, uri: str, version: int | None) -> bool:
        return publish.uri == uri and (version is None or publish.version == version)

    # --- reading --------------------------------------------------------------

    async def _read_loop(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        reader = self.proc.stdout
        try:
            while True:
                length = -1
                while True:
                    line = await reader.readuntil(b"\r\n")
                    if line == b"\r\n":
                        break
                    name, _, value = line.decode("ascii").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                if length < 0:
                    raise LspError("frame without Content-Length")
                body = await reader.readexactly(length)
                arrived = time.perf_counter()
                await self._dispatch(json.loads(body), arrived)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(LspError(f"server exited: {self._stderr_text()}"))

    async def _dispatch(self, message: dict[str, Any], arrived: float) -> None:
        if "method" not in message:
            future = self._pending.get(message.get("id"))  # type: ignore[arg-type]
            if future is None or future.done():
                return
            if "error" in message:
                future.set_exception(LspError(json.dumps(message["error"])[:500]))
            else:
                future.set_result((message.get("result"), arrived))
            return
        method = message["method"]
        if method == "textDocument/publishDiagnostics":
            self._record_publish(message.get("params") or {}, arrived)
        elif "id" in message:
            await self._answer_server_request(message)

    def _record_publish(self, params: dict[str, Any], arrived: float) -> None:
        publish = Publish(
            uri=params.get("uri", ""),
            version=params.get("version"),
            count=len(params.get("diagnostics") or []),
            at=arrived,
            seq=self.last_seq() + 1,
            sample=tuple(str(d.get("message", ""))[:120] for d in (params.get("diagnostics") or [])[:4]),
        )
        self.publishes.append(publish)
        self.latest_diagnostics[publish.uri] = params.get("diagnostics") or []
        for waiter in list(self._waiters):
            if (
                not waiter.future.done()
                and publish.seq > waiter.after_seq
                and self._matches(publish, waiter.uri, waiter.version)
            ):
                waiter.future.set_result(publish)

    async def _answer_server_request(self, message: dict[str, Any]) -> None:
        result: Any = None
        if message["method"] == "workspace/configuration":
            items = (message.get("params") or {}).get("items") or []
            result = [self.configuration(item) for item in items]
        frame = self.encode({"jsonrpc": "2.0", "id": message["id"], "result": result})
        with contextlib.suppress(ConnectionError):
            await self.send_raw(frame)

    async def _drain_stderr(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        while chunk := await self.proc.stderr.read(65536):
            self.stderr_tail.extend(chunk)
            del self.stderr_tail[:-65536]

    def _stderr_text(self) -> str:
        return self.stderr_tail.decode("utf-8", "replace")[-2000:]
