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

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer

TRIGGER_CHARACTERS = ['"', ".", ":", "[", ",", " ", "{"]
IN_THREAD_FROM_CHARS = 100_000
"""Longer texts (about 400 nodes and up) are completed in a worker thread, their parse
included: parsing and building the node list of a fresh version (thousands of nodes)
must not hold up a hover sent meanwhile."""


def supports_markdown(server: HwfServer, path: str) -> bool:
    formats = get_capability(server.client_capabilities, path, None) or []
    return types.MarkupKind.Markdown in formats


def register(server: HwfServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_COMPLETION,
                    types.CompletionOptions(trigger_characters=TRIGGER_CHARACTERS))
    @guarded()
    async def completion(params: types.CompletionParams) -> types.CompletionList | None:
        at = on_design(server, params)
        if at is None:
            return None
        snippets = bool(get_capability(
            server.client_capabilities,
            "text_document.completion.completion_item.snippet_support", False))
        markdown = supports_markdown(
            server, "text_document.completion.completion_item.documentation_format")
        offset = at.offset(params.position)

        def answer() -> types.CompletionList:
            items = complete(at.doc, offset, run=at.analysis.run, snippets=snippets)
            return types.CompletionList(
                is_incomplete=items.incomplete,
                items=[convert.completion_item(i, at.lines, at.encoding, markdown)
                       for i in items])

        if len(at.analysis.text) >= IN_THREAD_FROM_CHARS:  # other requests go on meanwhile
            return await asyncio.to_thread(answer)
        return answer()
