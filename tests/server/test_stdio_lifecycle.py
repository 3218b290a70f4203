"""The server over raw stdio: frames too long to hold, exit codes, quiet refusals.

- a frame whose Content-Length is over MAX_MESSAGE_BYTES is discarded and the
  server answers the next request (pygls alone preallocates it: MemoryError, dead);
- `exit` without `shutdown` ends with 1, after it with 0 (LSP spec);
- a refused rename is an error answer with no traceback on stderr.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from hwf_lsp.server import stdio

LIMIT = 4096
"""The server under test refuses frames over this many bytes (the real limit is 256 MiB)."""
LAUNCH = ("import hwf_lsp.server.stdio as s; s.MAX_MESSAGE_BYTES = {limit}; "
          "from hwf_lsp.server.main import main; raise SystemExit(main())")


class Raw:
    """A hwf-lsp process spoken to in bytes."""

    def __init__(self, limit: int = LIMIT) -> None:
        self.home = Path(tempfile.mkdtemp(prefix="hwf-stdio-home-"))
        self.workspace = Path(tempfile.mkdtemp(prefix="hwf-stdio-ws-"))
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [sys.executable, "-c", LAUNCH.format(limit=limit)], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self.stderr, cwd=self.workspace,
            env={**os.environ, "HERMES_HOME": str(self.home)})
        self.next_id = 0

    def send(self, payload: dict[str, Any]) -> None:
        body = json.dumps(payload).encode()
        self.send_bytes(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def send_bytes(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        length = None
        while True:
            line = self.proc.stdout.readline()
            assert line, "the server closed its output"
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
            elif line in (b"\r\n", b"\n") and length is not None:
                return json.loads(self.proc.stdout.read(length))

    def request(self, method: str, params: Any = None) -> dict[str, Any]:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            message = self.read()
            if message.get("id") == self.next_id and "method" not in message:
                return message

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def initialize(self) -> None:
        answer = self.request("initialize", {"processId": None, "capabilities": {},
                                             "rootUri": self.workspace.as_uri()})
        assert "result" in answer, answer
        self.notify("initialized", {})

    def stderr_text(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read().decode(errors="replace")

    def finish(self, timeout: float = 20) -> int:
        try:
            return self.proc.wait(timeout)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            for stream in (self.proc.stdin, self.proc.stdout):
                stream.close()  # type: ignore[union-attr]


@pytest.mark.parametrize("count, limit, expected_body, left", [
    (10, 100, None, b"next"),  # within the limit: pygls's own read
    (150, 100, stdio.REFUSED_BODY, b"next"),  # refused: exactly `count` bytes dropped
    (500, 100, b"", b""),  # the input ends inside the refused frame: end of input
])
def test_bounded_reader(count: int, limit: int, expected_body: bytes | None,
                        left: bytes) -> None:
    data = b"x" * min(count, 300) + (b"next" if count < 300 else b"")
    stream = io.BufferedReader(io.BytesIO(data), buffer_size=16)  # small chunks on purpose

    async def read() -> bytes:
        reader = stdio.BoundedStdinReader(stream, limit=limit)
        return await reader.readexactly(count)

    body = asyncio.run(read())
    assert body == (b"x" * count if expected_body is None else expected_body)
    assert stream.read() == left


@pytest.mark.parametrize("count, limit, expected_body, left", [
    (10, 100, None, b"next"),  # within the limit
    (150, 100, stdio.REFUSED_BODY, b"next"),  # refused: exactly `count` bytes dropped
    (500, 100, b"", b""),  # the input ends inside the refused frame: end of input
    (400, 1000, b"", b""),  # the input ends inside a frame within the limit
])
def test_pipe_reader(count: int, limit: int, expected_body: bytes | None,
                     left: bytes) -> None:
    """The event loop's own reader of a pipe answers as the thread's reader does."""
    data = b"x" * min(count, 300) + (b"next" if count < 300 else b"")

    async def read() -> tuple[bytes, bytes]:
        source, sink = os.pipe()
        os.write(sink, data)
        os.close(sink)
        with os.fdopen(source, "rb") as stream:
            reader = stdio.stdin_reader(stream)
            assert isinstance(reader, stdio.PipeReader)
            reader.limit = limit
            body = await reader.readexactly(count)
            rest = await reader.readline()
        return body, rest

    body, rest = asyncio.run(read())
    assert body == (b"x" * count if expected_body is None else expected_body)
    assert rest == left


def test_pipe_reader_drops_a_header_line_too_long_and_reads_on() -> None:
    data = b"y" * (stdio.HEADER_LINE_LIMIT + 10) + b"\r\nContent-Length: 2\r\n\r\n{}"

    async def read() -> list[bytes]:
        source, sink = os.pipe()
        reader = stdio.stdin_reader(os.fdopen(source, "rb"))
        writing = asyncio.get_running_loop().run_in_executor(None, os.write, sink, data)
        lines = [await reader.readline() for _ in range(3)]
        lines.append(await reader.readexactly(2))
        await writing
        os.close(sink)
        lines.append(await reader.readline())
        return lines

    assert asyncio.run(read()) == [stdio.JUNK_HEADER, b"Content-Length: 2\r\n", b"\r\n",
                                   b"{}", b""]


@pytest.mark.parametrize("sent, expected", [
    (3 * stdio.BIG_BODY_BYTES + 4, b"next"),  # read by the thread, then the loop again
    (stdio.BIG_BODY_BYTES, b""),  # the input ends inside the long body
])
def test_pipe_reader_reads_a_long_body_in_a_thread(sent: int, expected: bytes) -> None:
    count = 3 * stdio.BIG_BODY_BYTES
    data = (bytes(range(256)) * (sent // 256 + 1))[:min(sent, count)] + \
        (b"next" if sent > count else b"")

    async def read() -> tuple[bytes, bytes]:
        source, sink = os.pipe()
        reader = stdio.stdin_reader(os.fdopen(source, "rb"))
        loop = asyncio.get_running_loop()

        def write() -> None:
            os.write(sink, data[:1000])
            time.sleep(0.05)  # the first bytes reach the loop's buffer before the rest
            os.write(sink, data[1000:])
            os.close(sink)

        writing = loop.run_in_executor(None, write)
        body = await reader.readexactly(count)
        rest = await reader.readline()
        await writing
        return bytes(body), rest

    body, rest = asyncio.run(read())
    assert body == (data[:count] if expected else b"")
    assert rest == expected


def test_a_file_or_terminal_keeps_the_thread_reader(tmp_path) -> None:
    path = tmp_path / "input"
    path.write_bytes(b"")
    with path.open("rb") as stream:
        assert isinstance(stdio.stdin_reader(stream), stdio.BoundedStdinReader)
    assert isinstance(stdio.stdin_reader(io.BytesIO(b"")), stdio.BoundedStdinReader)


def test_discard_reads_in_bounded_chunks() -> None:
    reads: list[int] = []

    class Spy(io.BytesIO):
        def read1(self, n: int = -1) -> bytes:
            reads.append(n)
            return super().read1(n)

    assert stdio.discard(Spy(b"y" * 2500), 2000, chunk=1000) == 2000
    assert reads == [1000, 1000]


def test_oversized_frame_is_dropped_and_the_server_goes_on() -> None:
    server = Raw()
    try:
        server.initialize()
        padding = "p" * (LIMIT * 3)
        server.send({"jsonrpc": "2.0", "id": 99, "method": "workspace/symbol",
                     "params": {"query": padding}})  # over the limit: never answered
        answer = server.request("workspace/symbol", {"query": "x"})
        assert "result" in answer, answer
        server.send_bytes(b"Content-Length: 999999999999\r\n\r\n{}")  # BUG-H9-2's frame
        assert server.proc.poll() is None
        stderr = server.stderr_text()
        assert "refusing a message of" in stderr and "MemoryError" not in stderr
    finally:
        server.proc.kill()
        server.finish()


@pytest.mark.parametrize("shutdown_first, code", [(True, 0), (False, 1)])
def test_exit_code(shutdown_first: bool, code: int) -> None:
    server = Raw()
    server.initialize()
    if shutdown_first:
        assert server.request("shutdown")["result"] is None
    server.notify("exit")
    assert server.finish() == code


def test_refused_rename_is_quiet() -> None:
    server = Raw()
    try:
        server.initialize()
        uri = (server.workspace / "r.hwf.json").as_uri()
        text = ('{"name": "r", "nodes": [{"id": "t", "type": "trigger"},\n'
                ' {"id": "a", "type": "agent", "prompt": "p", "after": ["t"]}]}')
        server.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "json", "version": 1, "text": text}})
        at_a = {"line": 1, "character": text.split("\n")[1].index('"a"') + 1}
        for new_name in ("t", "", "a b"):  # taken, empty, not an id
            answer = server.request("textDocument/rename", {
                "textDocument": {"uri": uri}, "position": at_a, "newName": new_name})
            assert answer.get("error", {}).get("code") == -32803, answer
        answer = server.request("workspace/executeCommand", {
            "command": "hwf.resumeRun", "arguments": ["abcdef123456"]})  # no such run
        assert answer["error"]["code"] == -32803, answer
        assert server.request("shutdown")["result"] is None
        server.notify("exit")
        assert server.finish() == 0
    finally:
        if server.proc.poll() is None:
            server.proc.kill()
            server.finish()
    stderr = server.stderr_text()
    assert "Traceback" not in stderr, stderr
