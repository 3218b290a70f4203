"""`hwf-lsp`: start the language server on stdio (default) or TCP."""

from __future__ import annotations

import argparse
import logging
import sys

from hwf_lsp.server.server import SERVER_VERSION, build_server


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="hwf-lsp", description="Hermes Workflow language server (LSP on stdio by default)."
    )
    parser.add_argument("--version", action="version", version=f"hwf-lsp {SERVER_VERSION}")
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

    server = build_server()
    if args.tcp:
        server.start_tcp(args.host, args.port)
    else:
        server.start_io()
    return 0
