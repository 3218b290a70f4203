"""`hwf-lsp`: start the language server on stdio (default) or TCP.

The server and its dependencies are imported with the cyclic garbage collector off:
importing lsprotocol creates hundreds of thousands of long-lived objects, and each
collection pass over them is wasted (they live as long as the process); then they are
frozen (`gc.freeze`), so later collections skip them.  The young generation is
collected after YOUNG_OBJECTS new container objects, not 700: a keystroke's tree has no
cycles and is freed by reference counting at the next one (docs/decisions.md).
"""

from __future__ import annotations

import argparse
import gc
import logging
import sys

from hwf_lsp import __version__

YOUNG_OBJECTS = 50_000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="hwf-lsp", description="Hermes Workflow language server (LSP on stdio by default)."
    )
    parser.add_argument("--version", action="version", version=f"hwf-lsp {__version__}")
    parser.add_argument("--stdio", action="store_true", help="use stdio (the default)")
    parser.add_argument("--tcp", action="store_true", help="listen on TCP instead of stdio")
    parser.add_argument("--host", default="127.0.0.1", help="TCP host (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=2087, help="TCP port (default 2087)")
    parser.add_argument("--log-file", help="write logs to this file")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging")
    args = parser.parse_args(argv)

    level = logging.WARNING - 10 * min(args.verbose, 2)
    handler = logging.FileHandler(args.log_file) if args.log_file else logging.StreamHandler(
        sys.stderr
    )
    logging.basicConfig(level=level, handlers=[handler],
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.captureWarnings(True)  # a Python warning framed like every other line

    gc.disable()
    from hwf_lsp.server.server import build_server

    server = build_server()
    gc.freeze()  # everything built so far lives as long as the process
    gc.enable()
    gc.set_threshold(YOUNG_OBJECTS, *gc.get_threshold()[1:])
    if args.tcp:
        server.start_tcp(args.host, args.port)
    else:
        server.start_io()
    code = getattr(server.protocol, "exit_code", None)  # set by `exit`: 1 without `shutdown`
    return 0 if code is None else code
