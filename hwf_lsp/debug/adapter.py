"""`hwf debug-adapter`: the Debug Adapter Protocol on stdin/stdout (docs/debugging.md).

stdout carries DAP frames only; logs go to stderr.  The end of stdin (the client died)
is a disconnect: the run is left resumable.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import BinaryIO

from hwf_lsp.debug.dap_framing import FrameReader, FrameWriter
from hwf_lsp.debug.session import Session

log = logging.getLogger(__name__)


def serve(stdin: BinaryIO, stdout: BinaryIO, home: Path | None = None) -> int:
    """Answer requests until a disconnect or the end of stdin; the exit code."""
    reader, writer = FrameReader(stdin), FrameWriter(stdout)
    session = Session(writer, home)
    while not session.done:
        message = reader.read()
        if message is None:
            log.info("stdin ended: disconnecting")
            session.disconnect({})
            break
        session.handle(message)
    return 0


def main() -> int:
    logging.basicConfig(stream=sys.stderr, format="hwf debug-adapter: %(message)s",
                        level=logging.DEBUG if os.environ.get("HWF_DEBUG") else logging.WARNING)
    # Frames go to a copy of fd 1; fd 1 itself becomes stderr, so a stray print (ours or a
    # library's) can never corrupt the protocol stream.
    protocol_out = os.fdopen(os.dup(sys.stdout.fileno()), "wb", buffering=0)
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    return serve(sys.stdin.buffer, protocol_out)
