"""textDocument/completion: analysis.completion_items at the cursor, as text edits."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.capabilities import get_capability

from hwf_lsp.analysis.completion_items import complete
from hwf_lsp.server import convert
from hwf_lsp.server.features.request import on_design
from hwf_lsp.server.guard import guarded

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer

TRIGGER_CHARACTERS = ['"', ".", ":", "[", ",", " ", "{"]

def supports_markdown(server: HwfServer, path: str) -> bool:
    formats = get_capability(server.client_capabilities, path, None) or []
    return types.MarkupKind.Markdown in formats


def register(server: HwfServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_COMPLETION,
                    types.CompletionOptions(trigger_characters=TRIGGER_CHARACTERS))
    @guarded()
    def completion(params: types.CompletionParams) -> types.CompletionList | None:
        at = on_design(server, params)
        if at is None:
            return None
        snippets = bool(get_capability(
            server.client_capabilities,
            "text_document.completion.completion_item.snippet_support", False))
        markdown = supports_markdown(
            server, "text_document.completion.completion_item.documentation_format")
        items = complete(at.doc, at.offset(params.position), run=at.analysis.run,
                         snippets=snippets)
        return convert.completion_list(items, at.lines, at.encoding, markdown)
