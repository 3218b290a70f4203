"""The floor: a bare pygls 2 server that publishes an empty diagnostics list on open and change,
and answers completion with an empty list and hover with null.

It does everything the stack itself costs (framing, JSON decode of the params, applying the
edit to pygls's workspace, encoding the answer) and nothing a real checker adds, so hwf-lsp's
latency divided by this one's is the price of our own analysis.

    python bench/floor_server.py [--sync full|incremental]
"""

from __future__ import annotations

import argparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer

SYNC_KINDS = {
    "full": types.TextDocumentSyncKind.Full,
    "incremental": types.TextDocumentSyncKind.Incremental,
}


def build_server(sync: str) -> LanguageServer:
    """A server whose only feature is an empty publish for the document version just seen."""
    server = LanguageServer("hwf-bench-floor", "0", text_document_sync_kind=SYNC_KINDS[sync])

    def publish_empty(ls: LanguageServer, uri: str) -> None:
        document = ls.workspace.get_text_document(uri)
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, version=document.version, diagnostics=[])
        )

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: LanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        publish_empty(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: LanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        publish_empty(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_COMPLETION)
    def completion(ls: LanguageServer, params: types.CompletionParams) -> types.CompletionList:
        return types.CompletionList(is_incomplete=False, items=[])

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: LanguageServer, params: types.HoverParams) -> None:
        return None

    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sync", choices=sorted(SYNC_KINDS), default="incremental")
    args = parser.parse_args()
    build_server(args.sync).start_io()


if __name__ == "__main__":
    main()
