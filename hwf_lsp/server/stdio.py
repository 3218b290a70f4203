"""Reading LSP frames from stdin without trusting the client's Content-Length.

pygls reads a frame's body with `stdin.read(content_length)`, which preallocates
the whole length: `Content-Length: 999999999999` raises MemoryError outside any
handler and ends the server.  `BoundedStdinReader` refuses a frame longer than
MAX_MESSAGE_BYTES: it reads and drops what arrives of it in small chunks (so the
framing stays in step if the client really sends that much), logs an error, and
hands pygls an empty object, which the protocol drops as a malformed message.
"""

from __future__ import annotations

import logging
from typing import BinaryIO

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
