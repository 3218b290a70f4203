"""Where a design test file names a node of its design, or the design itself: the spans a
rename of a node id or of the design rewrites and references list (issue 47).

A case names nodes as keys of its node maps (`agents`, `answers`, `expect.steps`,
`expect.outputs`, `expect.delivered`), as items of `failing_deliveries`, and as keys of an
output node's expected output (an output gathers its upstream outputs by id).  Spans cover
the id's characters only, so an edit is the new id itself; an id spelled with escapes is
left alone, as in the design (analysis/navigation.py).  Pure: the design arrives as a value.
"""

from __future__ import annotations

from typing import Any

from ..jsontext.jsontree import JsonNode, Member, ParsedDocument
from ..rules.vocabulary import OUTPUT
from .design_test_text import NODE_PLACES, nodes_of
from .navigation import _plain_string_span

Span = tuple[int, int]


def _member(node: JsonNode | None, key: str) -> Member | None:
    if node is None or node.kind != "object":
        return None
    return next((m for m in reversed(node.members or []) if m.key == key), None)


def _value_at(node: JsonNode | None, path: tuple[str, ...]) -> JsonNode | None:
    for key in path:
        member = _member(node, key)
        node = member.value if member is not None else None
    return node


def _key_span(text: str, member: Member, node_id: str) -> Span | None:
    start, end = member.key_start + 1, member.key_end - 1
    return (start, end) if member.key == node_id and text[start:end] == node_id else None


def _keys_naming(text: str, node: JsonNode | None, node_id: str) -> list[Span]:
    if node is None or node.kind != "object":
        return []
    return [span for m in node.members or [] if (span := _key_span(text, m, node_id))]


def cases_of(doc: ParsedDocument) -> list[JsonNode]:
    """The case objects of a test file's text."""
    cases = _value_at(doc.root, ("cases",))
    if cases is None or cases.kind != "array":
        return []
    return [case for case in cases.items or [] if case.kind == "object"]


def node_id_spans(doc: ParsedDocument, design: Any, node_id: str) -> list[Span]:
    """Every span of the test file's text that names node `node_id` of `design` (the design
    under test as a dict), in source order."""
    text = doc.text
    outputs = {i for i, node in nodes_of(design).items() if node.get("type") == OUTPUT}
    found: list[Span] = []
    for case in cases_of(doc):
        for place in NODE_PLACES:
            value = _value_at(case, place)
            if value is not None and value.kind == "array":
                found += [span for item in value.items or []
                          if item.value == node_id and (span := _plain_string_span(text, item))]
            else:
                found += _keys_naming(text, value, node_id)
        expected = _value_at(case, ("expect", "outputs"))
        for member in (expected.members or []) if expected and expected.kind == "object" else []:
            if member.key in outputs:
                found += _keys_naming(text, member.value, node_id)
    return sorted(found)


def design_reference_span(doc: ParsedDocument) -> tuple[int, int, str] | None:
    """(start, end, value) of the test file's `design` string, spelled without escapes."""
    member = _member(doc.root, "design")
    span = _plain_string_span(doc.text, member.value) if member is not None else None
    return (*span, member.value.value) if span and member else None


def design_name_at(doc: ParsedDocument, offset: int) -> tuple[int, int, str] | None:
    """(start, end, name) of a design's top-level `name` when `offset` is in it (its ends
    included), else None: what prepareRename offers to rename a design."""
    member = _member(doc.root, "name")
    span = _plain_string_span(doc.text, member.value) if member is not None else None
    if span is None or member is None or not span[0] <= offset <= span[1]:
        return None
    return (*span, member.value.value)
