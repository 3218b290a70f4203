"""textDocument/documentSymbol: the nodes in run-plan order, with their kind.

A client that takes a hierarchy (hierarchicalDocumentSymbolSupport) gets each node's
fields as its children; any other gets the flat list of nodes as SymbolInformation."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from hwf_lsp.analysis.symbols import document_symbols
from hwf_lsp.server import convert
from hwf_lsp.server.features.request import DesignRequest, on_design
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


FIELD_KINDS = {
    "string": types.SymbolKind.String,
    "number": types.SymbolKind.Number,
    "true": types.SymbolKind.Boolean,
    "false": types.SymbolKind.Boolean,
    "null": types.SymbolKind.Null,
    "array": types.SymbolKind.Array,
    "object": types.SymbolKind.Object,
}


def hierarchical(server: HwfServer) -> bool:
    caps = server.client_capabilities
    symbols = caps.text_document.document_symbol if caps and caps.text_document else None
    return bool(symbols is not None and symbols.hierarchical_document_symbol_support)


def _tree(at: DesignRequest) -> list[types.DocumentSymbol]:
    def span(start: int, end: int) -> types.Range:
        return convert.to_range(at.lines, start, end, at.encoding)

    return [
        types.DocumentSymbol(
            name=s.name, detail=s.detail, kind=symbol_kind(s.kind),
            range=span(s.start, s.end), selection_range=span(s.selection_start, s.selection_end),
            children=[types.DocumentSymbol(
                name=f.name or '""', detail=f.detail,
                kind=FIELD_KINDS.get(f.value_kind, types.SymbolKind.Key),
                range=span(f.start, f.end),
                selection_range=span(f.selection_start, f.selection_end))
                for f in s.children])
        for s in document_symbols(at.doc, with_fields=True, design=at.design)
    ]


def _flat(at: DesignRequest) -> list[types.SymbolInformation]:
    return [
        types.SymbolInformation(
            name=s.name, kind=symbol_kind(s.kind),
            location=convert.location(at.uri, at.lines, s.start, s.end, at.encoding),
            container_name=s.detail)
        for s in document_symbols(at.doc, design=at.design)
    ]


def register(server: HwfServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @guarded(default=list)
    def document_symbol(params: types.DocumentSymbolParams
                        ) -> list[types.DocumentSymbol] | list[types.SymbolInformation] | None:
        at = on_design(server, params)
        if at is None:
            return None
        return _tree(at) if hierarchical(server) else _flat(at)
