"""textDocument/hover: kinds, fields and node references (with the newest run)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from hwf_lsp.analysis.hover import hover as hover_at
from hwf_lsp.server import convert
from hwf_lsp.server.features.completion import supports_markdown
from hwf_lsp.server.guard import guarded

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer


def register(server: HwfServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @guarded()
    def hover(params: types.HoverParams) -> types.Hover | None:
        analysis = server.analysis(params.text_document.uri)
        if analysis is None:
            return None
        encoding = server.encoding
        offset = convert.to_offset(analysis.lines, params.position, encoding)
        result = hover_at(analysis.doc, offset, analysis.run)
        if result is None:
            return None
        markdown = supports_markdown(server, "text_document.hover.content_format")
        return convert.hover(result, analysis.lines, encoding, markdown)
