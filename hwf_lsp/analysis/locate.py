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
share it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..workflow.defects import Defect
from .jsontree import JsonNode, ParsedDocument, source_offset

__all__ = ["Finding", "locate", "node_object", "finding_for", "findings_for", "string_span"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem to show: a rule, a severity, a message and [start, end) offsets."""

    rule: str
    severity: str
    """'error' (syntax and rulebook) or 'warning' (editor-only checks)."""
    msg: str
    start: int
    end: int
    node: str | None = None
    field: str | None = None
    index: int | None = None


def _one_char(doc: ParsedDocument, offset: int) -> tuple[int, int]:
    return offset, min(offset + 1, len(doc.text))


def _last_member_value(node: JsonNode | None, key: str):
    if node is None or node.members is None:
        return None
    for member in reversed(node.members):
        if member.key == key:
            return member
    return None


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
    member = _last_member_value(root, "nodes")
    if member is not None:
        return member.key_start, member.key_end
    return _one_char(doc, root.start)


def _identity_range(doc: ParsedDocument, obj: JsonNode) -> tuple[int, int]:
    """A node's id value, else its opening brace."""
    member = _last_member_value(obj, "id")
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
    member = _last_member_value(obj, defect.field)
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


def finding_for(doc: ParsedDocument, defect: Defect, severity: str = "error") -> Finding:
    """A rulebook defect as a located Finding."""
    start, end = locate(doc, defect)
    return Finding(defect.rule, severity, defect.msg, start, end, defect.node, defect.field,
                   defect.index)


def findings_for(doc: ParsedDocument, defects: list[Defect],
                 severity: str = "error") -> list[Finding]:
    """Every defect as a located Finding."""
    return [finding_for(doc, defect, severity) for defect in defects]
