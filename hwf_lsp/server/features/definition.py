"""textDocument/definition: from a node reference to the node's `id`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from hwf_lsp.analysis.navigation import definition as definition_at
from hwf_lsp.server import convert
from hwf_lsp.server.features.request import on_design
from hwf_lsp.server.guard import guarded

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer


def register(server: HwfServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    @guarded()
    def definition(params: types.DefinitionParams) -> list[types.Location] | None:
        at = on_design(server, params)
        occ = definition_at(at.doc, at.offset(params.position), at.design) if at is not None else None
        if occ is None:
            return None
        return [convert.location(at.uri, at.lines, occ.start, occ.end, at.encoding)]
