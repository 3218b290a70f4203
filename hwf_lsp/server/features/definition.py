"""textDocument/definition: from a node reference to the node's `id`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from hwf_lsp.analysis.navigation import definition as definition_at
from hwf_lsp.server import convert
from hwf_lsp.server.guard import guarded

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer


def register(server: HwfServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    @guarded()
    def definition(params: types.DefinitionParams) -> list[types.Location] | None:
        analysis = server.analysis(params.text_document.uri)
        if analysis is None:
            return None
        encoding = server.encoding
        offset = convert.to_offset(analysis.lines, params.position, encoding)
        occ = definition_at(analysis.doc, offset)
        if occ is None:
            return None
        return [convert.location(params.text_document.uri, analysis.lines, occ.start, occ.end,
                                 encoding)]
