"""textDocument/foldingRange: every object and array that spans lines.

A fold ends on the line before its closer when the closer starts its line (it stays
visible, as editors fold JSON), else on the closer's line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from hwf_lsp.jsontext.folding import folds
from hwf_lsp.server.features.request import on_design
from hwf_lsp.server.guard import guarded

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer


def range_limit(server: HwfServer) -> int | None:
    caps = server.client_capabilities
    folding = caps.text_document.folding_range if caps and caps.text_document else None
    limit = folding.range_limit if folding is not None else None
    return limit if isinstance(limit, int) and limit > 0 else None


def register(server: HwfServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
    @guarded(default=list)
    def folding_range(params: types.FoldingRangeParams) -> list[types.FoldingRange] | None:
        at = on_design(server, params)
        if at is None:
            return None
        out: list[types.FoldingRange] = []
        limit = range_limit(server)
        for opener, closer in folds(at.doc):
            start_line = at.lines.position(opener)[0]
            end_line, column = at.lines.position(closer)
            if not at.doc.text[closer - column:closer].strip():
                end_line -= 1  # a closer on a line of its own stays visible
            if end_line > start_line:
                out.append(types.FoldingRange(start_line=start_line, end_line=end_line))
                if limit is not None and len(out) >= limit:
                    break
        return out
