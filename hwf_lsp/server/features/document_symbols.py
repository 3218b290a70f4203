"""textDocument/documentSymbol: the nodes in run-plan order, with their kind."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from hwf_lsp.analysis.symbols import document_symbols
from hwf_lsp.server import convert
from hwf_lsp.server.features.request import on_design
from hwf_lsp.server.guard import guarded

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer

SYMBOL_KINDS = {
    "trigger": types.SymbolKind.Event,
    "agent": types.SymbolKind.Function,
    "condition": types.SymbolKind.Boolean,
    "approval": types.SymbolKind.Interface,
    "output": types.SymbolKind.Field,
    "note": types.SymbolKind.String,
}


def symbol_kind(kind: Any) -> types.SymbolKind:
    return SYMBOL_KINDS.get(kind, types.SymbolKind.Object)


def register(server: HwfServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @guarded(default=list)
    def document_symbol(params: types.DocumentSymbolParams) -> list[types.DocumentSymbol] | None:
        at = on_design(server, params)
        if at is None:
            return None
        return [
            types.DocumentSymbol(
                name=s.name, detail=s.detail, kind=symbol_kind(s.kind),
                range=convert.to_range(at.lines, s.start, s.end, at.encoding),
                selection_range=convert.to_range(at.lines, s.selection_start, s.selection_end,
                                                 at.encoding),
            )
            for s in document_symbols(at.doc)
        ]
