"""Document symbols: the design's nodes in run-plan order, each with its kind.

The trigger comes first (where a run starts), then the steps in the order the
run executes them, then what never runs (notes, nodes without a usable kind).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..jsontext.jsontree import ParsedDocument
from ..rules.vocabulary import TRIGGER
from .design import Design, NodeInfo, design_of

DETAIL_CHARS = 60
"""A field's value shown beside its name in the outline, at most this long."""


@dataclass(frozen=True, slots=True)
class FieldSymbol:
    """One `"key": value` of a node, a child of the node's symbol in the outline."""

    name: str
    value_kind: str | None
    """The JSON kind of its value ('string', 'number', 'array'...), None without one."""
    detail: str
    start: int
    end: int
    selection_start: int
    selection_end: int
    """Its key."""


@dataclass(frozen=True, slots=True)
class Symbol:
    name: str
    kind: str | None
    detail: str
    start: int
    end: int
    """The node's whole object."""
    selection_start: int
    selection_end: int
    """Its id value (else its opening brace)."""
    children: tuple[FieldSymbol, ...] = field(default=())
    """The node's fields in source order (a hierarchical outline shows them)."""


def node_label(info: NodeInfo) -> str:
    """A node's kind and title, as the outline and the call hierarchy show it."""
    return (info.kind or "no kind") + (f" — {info.title}" if info.title else "")


def _field_symbols(text: str, info: NodeInfo) -> tuple[FieldSymbol, ...]:
    out = []
    for member in info.obj.members or ():
        value = member.value
        shown = " ".join(text[value.start:value.end].split()) if value is not None else ""
        if len(shown) > DETAIL_CHARS:
            shown = shown[:DETAIL_CHARS - 1] + "…"
        out.append(FieldSymbol(member.key, value.kind if value is not None else None, shown,
                               member.key_start, member.end, member.key_start,
                               member.key_end))
    return tuple(out)


def document_symbols(doc: ParsedDocument, *, with_fields: bool = False,
                     design: Design | None = None) -> list[Symbol]:
    """The nodes (trigger, steps in plan order, the rest); `with_fields` adds each node's
    fields as its children (the outline; workspace symbols want the nodes only)."""
    design = design or design_of(doc)
    plan = {ident: i + 1 for i, ident in enumerate(design.plan_order())}
    first: list[Symbol] = []
    steps: list[tuple[int, Symbol]] = []
    rest: list[Symbol] = []
    for info in design.infos:
        obj = info.obj
        if obj is None:
            continue
        id_member = info.member("id")
        id_value = id_member.value if id_member is not None else None
        if id_value is not None:
            selection = (id_value.start, id_value.end)
        else:
            selection = (obj.start, min(obj.start + 1, obj.end))
        name = info.id or f"(node {info.index} without id)"
        position = plan.get(info.id) if info.id and design.by_id.get(info.id) is info else None
        detail = node_label(info)
        if position is not None:
            detail = f"#{position} {detail}"
        symbol = Symbol(name, info.kind, detail, obj.start, obj.end, *selection,
                        _field_symbols(doc.text, info) if with_fields else ())
        if info.kind == TRIGGER:
            first.append(symbol)
        elif position is not None:
            steps.append((position, symbol))
        else:
            rest.append(symbol)
    steps.sort(key=lambda pair: pair[0])
    return first + [s for _, s in steps] + rest


def matches_query(name: str, query: str) -> bool:
    """Case-insensitive subsequence match, as editors filter workspace symbols."""
    if not query:
        return True
    name = name.lower()
    pos = 0
    for char in query.lower():
        pos = name.find(char, pos)
        if pos < 0:
            return False
        pos += 1
    return True
