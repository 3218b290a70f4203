"""textDocument/references: every `id`, `after` entry and `out.<id>` of one node id."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from hwf_lsp.analysis.navigation import references as references_at
from hwf_lsp.server import convert
from hwf_lsp.server.features.request import on_design
from hwf_lsp.server.guard import guarded

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer


def register(server: HwfServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    @guarded()
    def references(params: types.ReferenceParams) -> list[types.Location] | None:
        at = on_design(server, params)
        if at is None:
            return None
        include = params.context.include_declaration if params.context else True
        found = references_at(at.doc, at.offset(params.position), include_declaration=include,
                              design=at.design)
        return [convert.location(at.uri, at.lines, o.start, o.end, at.encoding) for o in found]
