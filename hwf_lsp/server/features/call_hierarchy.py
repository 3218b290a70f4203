"""Call hierarchy as the design's graph: prepare on any id occurrence, incoming calls =
the nodes it runs after (upstream), outgoing calls = the nodes that run after it
(downstream).  `fromRanges` are the `after` entries that make each edge."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from hwf_lsp.analysis.call_graph import GraphNode, downstream, graph_node_at, upstream
from hwf_lsp.server import convert
from hwf_lsp.server.features.document_symbols import symbol_kind
from hwf_lsp.server.features.request import DesignRequest, on_design
from hwf_lsp.server.guard import guarded

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer


def item(at: DesignRequest, node: GraphNode) -> types.CallHierarchyItem:
    return types.CallHierarchyItem(
        name=node.id, kind=symbol_kind(node.kind), detail=node.detail, uri=at.uri,
        range=convert.to_range(at.lines, node.start, node.end, at.encoding),
        selection_range=convert.to_range(at.lines, node.selection_start, node.selection_end,
                                         at.encoding),
        data={"id": node.id})


def _ident(call_item: types.CallHierarchyItem) -> str:
    data: Any = call_item.data
    ident = data.get("id") if isinstance(data, dict) else None
    return ident if isinstance(ident, str) else call_item.name


def _ranges(at: DesignRequest, spans: tuple[tuple[int, int], ...]) -> list[types.Range]:
    return [convert.to_range(at.lines, s, e, at.encoding) for s, e in spans]


def _of_item(server: HwfServer, call_item: types.CallHierarchyItem) -> DesignRequest | None:
    """The design an item (from prepare) is in."""
    return on_design(server, types.TextDocumentPositionParams(
        text_document=types.TextDocumentIdentifier(uri=call_item.uri),
        position=call_item.selection_range.start))


def register(server: HwfServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY)
    @guarded()
    def prepare(params: types.CallHierarchyPrepareParams
                ) -> list[types.CallHierarchyItem] | None:
        at = on_design(server, params)
        node = graph_node_at(at.doc, at.offset(params.position), at.design) if at is not None else None
        return [item(at, node)] if node is not None else None

    @server.feature(types.CALL_HIERARCHY_INCOMING_CALLS)
    @guarded()
    def incoming(params: types.CallHierarchyIncomingCallsParams
                 ) -> list[types.CallHierarchyIncomingCall] | None:
        at = _of_item(server, params.item)
        if at is None:
            return None
        return [types.CallHierarchyIncomingCall(from_=item(at, edge.node),
                                                from_ranges=_ranges(at, edge.spans))
                for edge in upstream(at.doc, _ident(params.item), at.design)]

    @server.feature(types.CALL_HIERARCHY_OUTGOING_CALLS)
    @guarded()
    def outgoing(params: types.CallHierarchyOutgoingCallsParams
                 ) -> list[types.CallHierarchyOutgoingCall] | None:
        at = _of_item(server, params.item)
        if at is None:
            return None
        return [types.CallHierarchyOutgoingCall(to=item(at, edge.node),
                                                from_ranges=_ranges(at, edge.spans))
                for edge in downstream(at.doc, _ident(params.item), at.design)]
