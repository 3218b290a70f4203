"""The server over raw stdio: malformed frames, frames too long to hold, exit codes, quiet
refusals.

- after a malformed frame (a wrong, huge or missing Content-Length, a lower-case or
  LF-only header) the next request is answered (server/framing.py);
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
import threading
from pathlib import Path
from typing import Any

import pytest
from pygls.io_ import run_async

from hwf_lsp.server import framing

LIMIT = 4096
"""The server under test refuses frames over this many bytes (the real limit is 256 MiB)."""
LAUNCH = ("import hwf_lsp.server.framing as f; f.MAX_MESSAGE_BYTES = {limit}; "
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


def read_frames(data: bytes, limit: int = 1000) -> list[bytes]:
    """The bodies pygls's own read loop takes out of `data` through FramedReader."""
    bodies: list[bytes] = []

    class Collect:
        def structure_message(self, value: Any) -> Any:
            return value

        def handle_message(self, message: Any) -> None:
            bodies.append(json.dumps(message).encode())

    async def run() -> None:
        reader = framing.FramedReader(io.BufferedReader(io.BytesIO(data)), limit=limit)
        await run_async(threading.Event(), reader, Collect())  # type: ignore[arg-type]

    asyncio.run(run())
    return bodies


def frame(body: bytes, length: bytes | None = None, *, eol: bytes = b"\r\n",
          name: bytes = b"Content-Length") -> bytes:
    length = str(len(body)).encode() if length is None else length
    return name + b": " + length + eol + eol + body


NEXT = b'{"next": 1}'


@pytest.mark.parametrize("malformed", [
    pytest.param(frame(b'{"a": 1}', b"3"), id="length shorter than the body"),
    pytest.param(frame(b'{"a": 1}', b"30"), id="length longer than the body"),
    pytest.param(frame(b'{"a": 1}', b"1e3"), id="length 1e3"),
    pytest.param(frame(b'{"a": 1}', b"-5"), id="length -5"),
    pytest.param(frame(b'{"a": 1}', b"9" * 5000), id="length of 5,000 digits"),
    pytest.param(b'{"a": 1}', id="no header at all"),
    pytest.param(b"\r\n\r\n{}\n", id="no header, line breaks"),
    pytest.param(frame(b'{"a": 1}', b"3000"), id="length over the limit, body short"),
    pytest.param(b"y" * (framing.HEADER_LINE_LIMIT + 10) + b"\r\n", id="a huge header line"),
])
def test_the_frame_after_a_malformed_one_is_read(malformed: bytes) -> None:
    assert read_frames(malformed + frame(NEXT))[-1] == NEXT


@pytest.mark.parametrize("good", [
    pytest.param(frame(NEXT, name=b"content-length"), id="lower-case header name"),
    pytest.param(frame(NEXT, eol=b"\n"), id="LF-only headers"),
    pytest.param(b"Content-Length: 11\r\nContent-Type: application/vscode-jsonrpc; "
                 b"charset=utf-8\r\n\r\n" + NEXT, id="with a Content-Type"),
])
def test_tolerated_headers_are_read(good: bytes) -> None:
    assert read_frames(good + frame(NEXT)) == [NEXT, NEXT]


def test_a_body_that_mentions_the_header_in_a_string_is_kept() -> None:
    body = json.dumps({"prompt": "Content-Length: 12\\r\\n"}).encode()
    assert read_frames(frame(body) + frame(NEXT)) == [body, NEXT]


def test_an_oversized_body_is_dropped_as_it_arrives_and_never_reserved() -> None:
    reads: list[int] = []

    class Spy(io.BytesIO):
        def read1(self, n: int = -1) -> bytes:
            reads.append(n)
            return super().read1(n)

    reader = framing.FramedReader(Spy(b"y" * 2500 + b"rest"), limit=100)
    assert reader.body(2500) == framing.DROPPED
    assert max(reads) <= framing.CHUNK_BYTES and reader.stdin.read() == b"rest"
    assert framing.FramedReader(io.BytesIO(b"y" * 50), limit=1000).body(500) == b"y" * 50
    assert framing.FramedReader(io.BytesIO(b"y" * 50), limit=10).body(500) == b""


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


@pytest.mark.parametrize("malformed", [
    b"Content-Length: " + b"9" * 5000 + b"\r\n\r\n{}",
    b"Content-Length: 5\r\n\r\n{\"jsonrpc\": \"2.0\", \"id\": 50}",
    b"Content-Length: 300\r\n\r\n{\"jsonrpc\": \"2.0\"}",
    b"Content-Length: 1e3\r\n\r\n{}",
    b"Content-Length: -5\r\n\r\n{}",
    b"content-length: 2\n\n{}",
    b"{\"jsonrpc\": \"2.0\", \"id\": 51, \"method\": \"shutdown\"}",
], ids=["5000 digits", "shorter", "longer", "1e3", "-5", "lower-case LF-only", "no header"])
def test_the_server_answers_after_a_malformed_frame(malformed: bytes) -> None:
    server = Raw()
    try:
        server.initialize()
        server.send_bytes(malformed)
        answer = server.request("workspace/symbol", {"query": "x"})
        assert "result" in answer, answer
        assert server.proc.poll() is None
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
