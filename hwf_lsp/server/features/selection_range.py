"""textDocument/selectionRange: expand from the cursor through the values around it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from hwf_lsp.jsontext.selection import selection_spans
from hwf_lsp.server import convert
from hwf_lsp.server.features.request import on_design
from hwf_lsp.server.guard import guarded

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer


def register(server: HwfServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_SELECTION_RANGE)
    @guarded(default=list)
    def selection_range(params: types.SelectionRangeParams
                        ) -> list[types.SelectionRange] | None:
        at = on_design(server, params)
        if at is None:
            return None
        out = []
        for pos in params.positions:
            offset = at.offset(pos)
            chain: types.SelectionRange | None = None
            for start, end in reversed(selection_spans(at.doc, offset)):  # outermost first
                chain = types.SelectionRange(
                    range=convert.to_range(at.lines, start, end, at.encoding), parent=chain)
            out.append(chain or types.SelectionRange(
                range=convert.to_range(at.lines, offset, offset, at.encoding)))
        return out
