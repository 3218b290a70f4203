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
import logging
import os
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
        log.error("refusing a message of %d bytes (the limit is %d): its bytes are discarded",
                  n, self.limit)
        dropped = discard(self.stdin, n)
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


class PipeReader:
    """stdin read by the event loop (a pipe or socket), with the same ceiling on a frame."""

    def __init__(self, stdin: BinaryIO, limit: int = MAX_MESSAGE_BYTES) -> None:
        self.stdin = stdin
        self.limit = limit
        self._stream: asyncio.StreamReader | None = None

    async def _opened(self) -> asyncio.StreamReader:
        if self._stream is None:
            loop = asyncio.get_running_loop()
            stream = asyncio.StreamReader(limit=HEADER_LINE_LIMIT, loop=loop)
            await loop.connect_read_pipe(
                lambda: asyncio.StreamReaderProtocol(stream, loop=loop), self.stdin)
            self._stream = stream
        return self._stream

    async def readline(self) -> bytes:
        stream = await self._opened()
        try:
            return await stream.readline()
        except ValueError:  # longer than HEADER_LINE_LIMIT (the stream dropped it)
            log.error("dropping a header line longer than %d bytes", HEADER_LINE_LIMIT)
            return JUNK_HEADER

    async def readexactly(self, n: int) -> bytes:
        stream = await self._opened()
        if n > self.limit:
            return await self._refuse(stream, n)
        try:
            return await stream.readexactly(n)
        except asyncio.IncompleteReadError:
            return b""  # end of input inside the frame: pygls stops reading

    async def _refuse(self, stream: asyncio.StreamReader, n: int) -> bytes:
        log.error("refusing a message of %d bytes (the limit is %d): its bytes are discarded",
                  n, self.limit)
        dropped = 0
        while dropped < n:
            data = await stream.read(min(DISCARD_CHUNK_BYTES, n - dropped))
            if not data:
                log.error("input ended inside the refused message (%d of %d bytes came)",
                          dropped, n)
                return b""
            dropped += len(data)
        return REFUSED_BODY


def stdin_reader(stdin: BinaryIO, executor: Any = None) -> PipeReader | BoundedStdinReader:
    """The reader for `stdin`: the event loop's own for a pipe, else pygls's thread."""
    if is_pipe(stdin):
        return PipeReader(stdin, MAX_MESSAGE_BYTES)
    return BoundedStdinReader(stdin, executor, limit=MAX_MESSAGE_BYTES)
