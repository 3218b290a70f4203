"""textDocument/completion: analysis.completion at the cursor, as text edits."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.capabilities import get_capability

from hwf_lsp.analysis.completion import complete
from hwf_lsp.server import convert
from hwf_lsp.server.features.request import on_design
from hwf_lsp.server.guard import guarded
from hwf_lsp.server.protocol import WireResult

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer

TRIGGER_CHARACTERS = ['"', ".", ":", "[", ",", " ", "{"]
IN_THREAD_FROM_CHARS = 100_000
"""A longer text (about 400 nodes and up) that still has to be parsed is completed in a
worker thread, its parse included (15-30 ms of json.loads at 5,000 nodes, then the node
list), so a hover sent meanwhile is not held up.  Once parsed, or carried over from the
last keystroke (no parse), it is completed on the event loop: ~21 ms at 5,000 nodes, and
the hop to a thread and back cost 10-15 ms more under the GIL (docs/decisions.md)."""
ON_LOOP_UP_TO_CHARS = 2_000_000
"""...but only up to about 8,000 nodes (~35 ms): a bigger design always goes to the thread."""


def supports_markdown(server: HwfServer, path: str) -> bool:
    formats = get_capability(server.client_capabilities, path, None) or []
    return types.MarkupKind.Markdown in formats


def register(server: HwfServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_COMPLETION,
                    types.CompletionOptions(trigger_characters=TRIGGER_CHARACTERS))
    @guarded()
    async def completion(params: types.CompletionParams) -> WireResult | None:
        at = on_design(server, params)
        if at is None:
            return None
        snippets = bool(get_capability(
            server.client_capabilities,
            "text_document.completion.completion_item.snippet_support", False))
        markdown = supports_markdown(
            server, "text_document.completion.completion_item.documentation_format")
        offset = at.offset(params.position)

        def answer() -> WireResult:
            items = complete(at.doc, offset, run=at.analysis.run, snippets=snippets)
            return WireResult(convert.completion_list_dict(items, at.lines, at.encoding,
                                                           markdown))

        size = len(at.analysis.text)
        if size >= IN_THREAD_FROM_CHARS and (size > ON_LOOP_UP_TO_CHARS
                                             or not at.analysis.parsed):
            return await asyncio.to_thread(answer)  # other requests go on meanwhile
        return answer()
