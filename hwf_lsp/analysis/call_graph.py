"""The design's graph as a call hierarchy: upstream nodes call in, downstream nodes go out.

From any occurrence of an id (its `id`, an `after` entry, `out.<id>` in a condition) to
the node it names; its edges are its `after` entries (upstream) and the `after` entries
of other nodes that name it (downstream), each with where that edge is written.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..jsontext.jsontree import ParsedDocument
from .design import Design, NodeInfo, design_of
from .locate import identity_span
from .navigation import AFTER, occurrence_at, occurrences
from .symbols import node_label

__all__ = ["GraphNode", "Edge", "graph_node_at", "graph_node", "upstream", "downstream"]


@dataclass(frozen=True, slots=True)
class GraphNode:
    id: str
    kind: str | None
    detail: str
    start: int
    end: int
    """The node's object."""
    selection_start: int
    selection_end: int
    """Its id value."""


@dataclass(frozen=True, slots=True)
class Edge:
    node: GraphNode
    """The node at the other end."""
    spans: tuple[tuple[int, int], ...]
    """Where the edge is written: the `after` entries that make it."""


def _node(doc: ParsedDocument, info: NodeInfo) -> GraphNode | None:
    if info.id is None or info.obj is None:
        return None
    detail = node_label(info)
    return GraphNode(info.id, info.kind, detail, info.obj.start, info.obj.end,
                     *identity_span(doc, info.index))


def graph_node(doc: ParsedDocument, ident: str, design: Design | None = None
               ) -> GraphNode | None:
    design = design or design_of(doc)
    info = design.by_id.get(ident)
    return _node(doc, info) if info is not None else None


def graph_node_at(doc: ParsedDocument, offset: int, design: Design | None = None
                  ) -> GraphNode | None:
    """The node named by the id occurrence under the cursor."""
    design = design or design_of(doc)
    occ = occurrence_at(doc, offset, design)
    return graph_node(doc, occ.node_id, design) if occ is not None else None


def _edges(doc: ParsedDocument, design: Design, pairs: list[tuple[str, tuple[int, int]]]
           ) -> list[Edge]:
    grouped: dict[str, list[tuple[int, int]]] = {}
    for ident, span in pairs:
        grouped.setdefault(ident, []).append(span)
    out = []
    for ident, spans in grouped.items():
        node = graph_node(doc, ident, design)
        if node is not None:
            out.append(Edge(node, tuple(spans)))
    return out


def upstream(doc: ParsedDocument, ident: str, design: Design | None = None) -> list[Edge]:
    """The nodes `ident` runs after (its `after` entries naming real nodes)."""
    design = design or design_of(doc)
    mine = {info.index for info in design.infos if info.id == ident}
    return _edges(doc, design, [(o.node_id, (o.start, o.end)) for o in occurrences(doc, design)
                                if o.role == AFTER and o.node_index in mine
                                and o.node_id != ident])


def downstream(doc: ParsedDocument, ident: str, design: Design | None = None) -> list[Edge]:
    """The nodes that run after `ident` (their `after` names it)."""
    design = design or design_of(doc)
    pairs = []
    for o in occurrences(doc, design):
        child = design.infos[o.node_index].id
        if o.role == AFTER and o.node_id == ident and child is not None and child != ident:
            pairs.append((child, (o.start, o.end)))
    return _edges(doc, design, pairs)
