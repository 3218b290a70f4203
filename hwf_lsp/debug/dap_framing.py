"""DAP frames: `Content-Length: N\\r\\n\\r\\n<json>`, as LSP frames them.

The reader never raises for bad input: a frame without a usable length, with a body
that is not a JSON object, or cut short is skipped (and logged on stderr); only the end
of the stream ends the loop.  stdout carries frames only.
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any, BinaryIO

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 64 * 1024 * 1024
"""A frame claiming more than this is skipped (its body is read and dropped)."""
MAX_HEADER_LINES = 32


class FrameReader:
    """Reads DAP messages from a binary stream; `read()` -> a dict, or None at EOF."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream

    def read(self) -> dict[str, Any] | None:
        while True:
            length = self._headers()
            if length is None:
                return None
            if length < 0:
                continue  # headers without a usable length: look for the next frame
            if length > MAX_BODY_BYTES:
                log.warning("skipping a frame of %d bytes (limit %d)", length, MAX_BODY_BYTES)
                if not self._drain(length):
                    return None
                continue
            body = self.stream.read(length)
            if len(body) < length:
                return None  # the stream ended inside a body
            message = _decode(body)
            if message is not None:
                return message

    def _drain(self, length: int) -> bool:
        while length > 0:
            chunk = self.stream.read(min(length, 1 << 20))
            if not chunk:
                return False
            length -= len(chunk)
        return True

    def _headers(self) -> int | None:
        """The Content-Length of the next frame; -1 for a header block without one;
        None at EOF.  A line before the blank one that is no header is skipped."""
        length = -1
        seen = 0
        while True:
            line = self.stream.readline()
            if not line:
                return None
            text = line.strip()
            if not text:
                if seen:
                    return length
                continue  # stray blank lines between frames
            seen += 1
            glued = text.lower().find(b"content-length:")
            if glued > 0:  # junk glued before the next frame's header: resync there
                log.warning("skipping %d bytes before a header", glued)
                text, length, seen = text[glued:], -1, 1
            name, sep, value = text.partition(b":")
            if sep and name.strip().lower() == b"content-length":
                try:
                    length = int(value.strip())
                except ValueError:
                    log.warning("skipping a frame with Content-Length %r", value.strip())
                    length = -1
                if length < 0:
                    length = -1
            elif not sep:
                log.warning("skipping a line that is no header: %r", text[:80])
            if seen > MAX_HEADER_LINES:
                return -1


def _decode(body: bytes) -> dict[str, Any] | None:
    try:
        message = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        log.warning("skipping a frame whose body is not JSON: %s", exc)
        return None
    if not isinstance(message, dict):
        log.warning("skipping a frame whose body is not a JSON object")
        return None
    return message


class FrameWriter:
    """Writes DAP messages to a binary stream, one whole frame at a time (thread-safe),
    numbering them with `seq`."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.lock = threading.Lock()
        self.seq = 0
        self.closed = False

    def write(self, message: dict[str, Any]) -> None:
        with self.lock:
            if self.closed:
                return
            self.seq += 1
            body = json.dumps({"seq": self.seq, **message}, ensure_ascii=False,
                              default=str).encode("utf-8")
            try:
                self.stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
                self.stream.flush()
            except (OSError, ValueError):  # the client is gone
                self.closed = True
