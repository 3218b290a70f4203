"""Reading LSP frames from stdin without trusting the client's Content-Length, and
without a thread hop per read where stdin is a pipe.

pygls reads a frame's body with `stdin.read(content_length)`, which preallocates
the whole length: `Content-Length: 999999999999` raises MemoryError outside any
handler and ends the server.  `BoundedStdinReader` refuses a frame longer than
MAX_MESSAGE_BYTES: it reads and drops what arrives of it in small chunks (so the
framing stays in step if the client really sends that much), logs an error, and
hands pygls an empty object, which the protocol drops as a malformed message.

pygls reads each header line and each body in its thread pool: three or four hops from
the event loop to a thread and back per message, each a wake-up of both (0.1-1 ms on a
busy machine).  Editors start a server with stdin a pipe (or a socket); then
`PipeReader` has the event loop read it itself (`connect_read_pipe`), and a message
already received is read with no hop at all.  Anything else (a file, a terminal, whose
file description others may share and must not be made non-blocking) keeps the thread.
"""

from __future__ import annotations

import asyncio
import io
import logging
import os
import select
import stat
from typing import Any, BinaryIO

from pygls.io_ import StdinAsyncReader

log = logging.getLogger(__name__)

MAX_MESSAGE_BYTES = 256 * 1024 * 1024
"""No design anyone edits comes near this; the bad-input corpus tops out at 10 MB."""
DISCARD_CHUNK_BYTES = 1024 * 1024
REFUSED_BODY = b"{}"
"""What the refused frame becomes: not a JSON-RPC message, so it is dropped with a warning."""


def discard(stream: BinaryIO, count: int, chunk: int = DISCARD_CHUNK_BYTES) -> int:
    """Read and drop up to `count` bytes, never holding more than `chunk`; bytes dropped."""
    dropped = 0
    read_some = getattr(stream, "read1", stream.read)
    while dropped < count:
        data = read_some(min(chunk, count - dropped))
        if not data:
            break  # end of input
        dropped += len(data)
    return dropped


class BoundedStdinReader(StdinAsyncReader):
    """pygls's stdin reader with a ceiling on the body of one frame."""

    def __init__(self, stdin: BinaryIO, executor=None,
                 limit: int = MAX_MESSAGE_BYTES) -> None:
        super().__init__(stdin, executor)
        self.limit = limit

    def readexactly(self, n: int):
        if n <= self.limit:
            return super().readexactly(n)
        return self.loop.run_in_executor(self.executor, self._refuse, n)

    def _refuse(self, n: int) -> bytes:
        _refusing(n, self.limit)
        return _refused(discard(self.stdin, n), n)


def _refusing(n: int, limit: int) -> None:
    log.error("refusing a message of %d bytes (the limit is %d): its bytes are discarded",
              n, limit)


def _refused(dropped: int, n: int) -> bytes:
    """What a refused frame of `n` bytes becomes once `dropped` of them were dropped."""
    if dropped < n:
        log.error("input ended inside the refused message (%d of %d bytes came)", dropped, n)
        return b""  # end of input: pygls stops reading, as for any closed stdin
    return REFUSED_BODY


HEADER_LINE_LIMIT = 64 * 1024
"""A header line longer than this is junk: it is dropped, as a header pygls ignores."""
JUNK_HEADER = b"X-Dropped: too long\r\n"


def is_pipe(stream: Any) -> bool:
    """Whether `stream` is a pipe or a socket the event loop can read itself (POSIX: the
    Windows loop reads only pipes opened for overlapped I/O, which stdin is not)."""
    if os.name != "posix":
        return False
    try:
        mode = os.fstat(stream.fileno()).st_mode
    except (AttributeError, OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


BIG_BODY_BYTES = 512 * 1024
"""A body this long is read by a thread, straight into its buffer: the loop would take it
a pipe's capacity (64 KiB) at a time, one wake-up each (5 MB: 11-18 ms, against 5-7)."""
HIGH_WATER_BYTES = 1024 * 1024
"""Past this much unread input the loop stops reading the pipe until it catches up: a
client that writes faster than the server reads waits, as with a blocking read."""


class _Inbox(asyncio.Protocol):
    """What the pipe delivered and not yet read; wakes the one reader waiting for more."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.ended = False
        self.transport: Any = None
        self._waiter: asyncio.Future[None] | None = None
        self._paused = False

    def connection_made(self, transport: Any) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) > HIGH_WATER_BYTES:
            self.pause()
        self._wake()

    def pause(self) -> None:
        """Stop reading the pipe (too much unread, or a thread reads it)."""
        if not self._paused:
            self._paused = True
            self.transport.pause_reading()

    def resume(self) -> None:
        if self._paused:
            self._paused = False
            self.transport.resume_reading()

    def eof_received(self) -> bool:
        self.ended = True
        self._wake()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.ended = True
        self._wake()

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    async def more(self) -> None:
        """Wait for more input (or its end)."""
        self.resume()
        self._waiter = asyncio.get_running_loop().create_future()
        try:
            await self._waiter
        finally:
            self._waiter = None

    def take(self, n: int) -> bytes:
        data = bytes(self.buffer[:n])
        del self.buffer[:n]
        return data


class PipeReader:
    """stdin read by the event loop (a pipe or socket), with the same ceiling on a frame.
    A long body is read by a thread, the loop's reading paused meanwhile."""

    def __init__(self, stdin: BinaryIO, limit: int = MAX_MESSAGE_BYTES) -> None:
        self.stdin = stdin
        self.limit = limit
        self._inbox: _Inbox | None = None

    async def _opened(self) -> _Inbox:
        if self._inbox is None:
            inbox = _Inbox()
            await asyncio.get_running_loop().connect_read_pipe(lambda: inbox, self.stdin)
            self._inbox = inbox
        return self._inbox

    async def readline(self) -> bytes:
        inbox = await self._opened()
        dropping = False
        while True:
            newline = inbox.buffer.find(b"\n")
            if newline >= 0:
                line = inbox.take(newline + 1)
                if dropping or len(line) > HEADER_LINE_LIMIT:
                    log.error("dropped a header line longer than %d bytes", HEADER_LINE_LIMIT)
                    return JUNK_HEADER
                return line
            if len(inbox.buffer) > HEADER_LINE_LIMIT:
                dropping = True
                inbox.buffer.clear()
            if inbox.ended:
                return inbox.take(len(inbox.buffer))
            await inbox.more()

    async def readexactly(self, n: int) -> bytes | bytearray:
        inbox = await self._opened()
        if n > self.limit:
            return await self._refuse(inbox, n)
        if n >= BIG_BODY_BYTES:
            return await self._read_long(inbox, n)
        while len(inbox.buffer) < n:
            if inbox.ended:
                inbox.buffer.clear()
                return b""  # end of input inside the frame: pygls stops reading
            await inbox.more()
        return inbox.take(n)

    async def _read_long(self, inbox: _Inbox, n: int) -> bytearray:
        body = bytearray(n)
        have = min(n, len(inbox.buffer))
        body[:have] = inbox.buffer[:have]
        del inbox.buffer[:have]
        if have == n:
            return body
        if inbox.ended:
            return bytearray()
        inbox.pause()
        try:
            complete = await asyncio.get_running_loop().run_in_executor(
                None, _read_into, self.stdin.fileno(), memoryview(body)[have:])
        finally:
            inbox.resume()
        if not complete:
            inbox.ended = True
            return bytearray()
        return body

    async def _refuse(self, inbox: _Inbox, n: int) -> bytes:
        _refusing(n, self.limit)
        dropped = 0
        while dropped < n:
            if not inbox.buffer:
                if inbox.ended:
                    break
                await inbox.more()
                continue
            dropped += len(inbox.take(min(DISCARD_CHUNK_BYTES, n - dropped)))
        return _refused(dropped, n)


def _read_into(fd: int, view: memoryview) -> bool:
    """Fill `view` from the non-blocking `fd` (a thread: the loop is not reading it);
    False when the input ends first."""
    raw = io.FileIO(fd, closefd=False)
    while len(view):
        try:
            count = raw.readinto(view)
        except BlockingIOError:
            count = None
        if count is None:
            select.select([fd], [], [])
            continue
        if count == 0:
            return False
        view = view[count:]
    return True


def stdin_reader(stdin: BinaryIO, executor: Any = None) -> PipeReader | BoundedStdinReader:
    """The reader for `stdin`: the event loop's own for a pipe, else pygls's thread."""
    if is_pipe(stdin):
        return PipeReader(stdin, MAX_MESSAGE_BYTES)
    return BoundedStdinReader(stdin, executor, limit=MAX_MESSAGE_BYTES)
