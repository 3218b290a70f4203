"""Where each defect sits in the text: the most precise range the rulebook allows.

A rulebook `Defect` names a node (by index), a field, and optionally one element
of a list field or a slice of a condition string.  This module turns that into
source offsets on the parsed tree:

- a field with a value          -> the value (an `after` element, a condition token
                                   inside the string literal, escapes accounted for)
- a field without a value        -> its key
- a missing field / a node defect -> the node's `id` value, else its opening `{`
- a graph-level defect           -> the `nodes` key, else the root's `{`, else 0..1

`Finding` (a defect or warning with its range) lives here so that lint and check
share it without importing each other.  Some findings point at a second place
(`Related`): a duplicate id at its first use, a second trigger at the first, a cycle at
each of its edges.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..jsontext.jsontree import JsonNode, ParsedDocument, peek_member, source_offset
from ..rules.defects import Defect
from ..rules.graph import find_cycle
from ..rules.validator import first_uses, trigger_indexes

__all__ = ["Finding", "Related", "locate", "node_object", "finding_for", "findings_for",
           "string_span", "identity_span", "moved"]


@dataclass(frozen=True, slots=True)
class Related:
    """Another place a finding is about, with what it is (LSP relatedInformation)."""

    start: int
    end: int
    msg: str


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem to show: a rule, a severity, a message and [start, end) offsets."""

    rule: str
    severity: str
    """'error' (syntax and rulebook), 'warning' (editor-only checks) or 'information'
    (the editor's word that the other rules wait: `findings.rules_waiting`)."""
    msg: str
    start: int
    end: int
    node: str | None = None
    field: str | None = None
    index: int | None = None
    related: tuple[Related, ...] = ()
    unnecessary: bool = False
    """The text it marks counts for nothing (the losing copy of a duplicate key)."""


def moved(finding: Finding, after: int, delta: int) -> Finding:
    """`finding` with every offset from `after` on moved by `delta` (its related too)."""
    def shift(offset: int) -> int:
        return offset + delta if offset >= after else offset

    related = tuple(Related(shift(r.start), shift(r.end), r.msg) for r in finding.related)
    start, end = shift(finding.start), shift(finding.end)
    if start == finding.start and end == finding.end and related == finding.related:
        return finding
    return replace(finding, start=start, end=end, related=related)


def _one_char(doc: ParsedDocument, offset: int) -> tuple[int, int]:
    return offset, min(offset + 1, len(doc.text))


def node_object(doc: ParsedDocument, index: int) -> JsonNode | None:
    """The tree node of `nodes[index]` (the `nodes` member that counts: the last)."""
    nodes = doc.node_at_path(("nodes",))
    if nodes is None or nodes.items is None or not 0 <= index < len(nodes.items):
        return None
    return nodes.items[index]


def _graph_range(doc: ParsedDocument) -> tuple[int, int]:
    root = doc.root
    if root is None:
        return _one_char(doc, 0)
    member = peek_member(root, "nodes")
    if member is not None:
        return member.key_start, member.key_end
    return _one_char(doc, root.start)


def identity_span(doc: ParsedDocument, index: int) -> tuple[int, int]:
    """Where nodes[index] is named: its id value, else its opening brace."""
    obj = node_object(doc, index)
    return _identity_range(doc, obj) if obj is not None else _graph_range(doc)


def _identity_range(doc: ParsedDocument, obj: JsonNode) -> tuple[int, int]:
    """A node's id value, else its opening brace."""
    member = peek_member(obj, "id")
    if member is not None and member.value is not None:
        return member.value.start, member.value.end
    if obj.kind != "object":
        return obj.start, obj.end
    return _one_char(doc, obj.start)


def string_span(doc: ParsedDocument, node: JsonNode, span: tuple[int, int]) -> tuple[int, int]:
    """Source range of the decoded slice `span` of a string node's value."""
    start, end = span
    source_start = source_offset(doc.text, node, start)
    source_end = source_offset(doc.text, node, end) if end > start else source_start
    return source_start, source_end


def locate(doc: ParsedDocument, defect: Defect) -> tuple[int, int]:
    """[start, end) offsets for `defect`; never raises (falls back to the first character)."""
    try:
        return _locate(doc, defect)
    except Exception:  # noqa: BLE001 - a misplaced squiggle beats a dead server
        return _one_char(doc, 0)


def _locate(doc: ParsedDocument, defect: Defect) -> tuple[int, int]:
    if defect.index is None:
        return _graph_range(doc)
    obj = node_object(doc, defect.index)
    if obj is None:
        return _graph_range(doc)
    if obj.kind != "object" or defect.field is None:
        return _identity_range(doc, obj)
    member = peek_member(obj, defect.field)
    if member is None:
        return _identity_range(doc, obj)
    value = member.value
    if value is None:
        return member.key_start, member.key_end
    if defect.element is not None and value.items is not None:
        if 0 <= defect.element < len(value.items):
            item = value.items[defect.element]
            return item.start, item.end
    if defect.span is not None and value.kind == "string":
        return string_span(doc, value, defect.span)
    return value.start, value.end


def finding_for(doc: ParsedDocument, defect: Defect, severity: str = "error",
                nodes: list | None = None) -> Finding:
    """A rulebook defect as a located Finding; with the design's `nodes` (its value), the
    places a duplicate id, a second trigger or a cycle is about as well."""
    start, end = locate(doc, defect)
    related = _related(doc, defect, nodes) if nodes is not None and \
        defect.rule in _RELATED_RULES else ()
    return Finding(defect.rule, severity, defect.msg, start, end, defect.node, defect.field,
                   defect.index, related)


def findings_for(doc: ParsedDocument, defects: list[Defect], severity: str = "error",
                 value: Any = None) -> list[Finding]:
    """Every defect as a located Finding; `value` (the document's value the defects are
    of) adds their related places."""
    nodes = value.get("nodes") if isinstance(value, dict) else None
    if not isinstance(nodes, list):
        nodes = None
    return [finding_for(doc, defect, severity, nodes) for defect in defects]


_RELATED_RULES = frozenset({"identity", "one-trigger", "acyclic"})


def _related(doc: ParsedDocument, defect: Defect, nodes: list) -> tuple[Related, ...]:
    """A duplicate id -> its first use; a second trigger -> the first; a cycle -> each edge.
    Asked only for those rare defects, so the cost stays off the common keystroke."""
    try:
        if defect.rule == "identity" and defect.node is not None:
            first = first_uses(nodes)[0].get(defect.node)
            if first is not None and first != defect.index:
                return (Related(*identity_span(doc, first), f"first use of {defect.node!r}"),)
        elif defect.rule == "one-trigger" and defect.index is not None:
            first = trigger_indexes(nodes)[0]
            span = locate(doc, Defect("one-trigger", "", None, "type", first))
            return (Related(*span, "the design's trigger"),)
        elif defect.rule == "acyclic":
            return _cycle_edges(doc, nodes)
    except (IndexError, KeyError, TypeError, ValueError):
        pass
    return ()


def _cycle_edges(doc: ParsedDocument, nodes: list) -> tuple[Related, ...]:
    cycle = find_cycle(nodes, include_self_loops=False) or []
    first_index = first_uses(nodes)[0]
    out = []
    for parent, child in zip(cycle, cycle[1:], strict=False):
        index = first_index[child]
        after = nodes[index].get("after")
        element = after.index(parent) if isinstance(after, list) and parent in after else None
        span = locate(doc, Defect("acyclic", "", None, "after", index, element))
        out.append(Related(*span, f"{child!r} runs after {parent!r}"))
    return tuple(out)
