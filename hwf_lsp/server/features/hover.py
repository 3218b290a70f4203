"""textDocument/hover: kinds, fields and node references (with the newest run)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from hwf_lsp.analysis.hover import hover as hover_at
from hwf_lsp.server import convert
from hwf_lsp.server.features.completion import supports_markdown
from hwf_lsp.server.features.request import on_design
from hwf_lsp.server.guard import guarded

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer


def register(server: HwfServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @guarded()
    def hover(params: types.HoverParams) -> types.Hover | None:
        at = on_design(server, params)
        result = hover_at(at.doc, at.offset(params.position), at.analysis.run,
                          server.settings.model_gate) if at is not None else None
        if result is None:
            return None
        markdown = supports_markdown(server, "text_document.hover.content_format")
        return convert.hover(result, at.lines, at.encoding, markdown)
