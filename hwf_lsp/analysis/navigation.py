"""Node ids as symbols: where each is defined, where it is used, and how to rename it.

An id occurs as the `id` value of its node (the definition), as an entry of
any `after` list, and as the `<node>` of a condition (`out.<node>.…`).  Spans
cover the id's characters only (not the quotes), so a rename edit is the new
id itself.  Ids spelled with escapes (`"\\u0061"`) are left alone: their source
text is not the id.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from ..jsontext.jsontree import JsonNode, Member, ParsedDocument, source_offset
from ..rules.conditions import NAME_PATTERN
from .design import Design, NodeInfo, design_of

DEFINITION, AFTER, CONDITION = "definition", "after", "condition"
_CONDITION_NODE = re.compile(r"\s*out\.(" + NAME_PATTERN + ")")
_VALID_ID = re.compile(NAME_PATTERN)


@dataclass(frozen=True, slots=True)
class Occurrence:
    node_id: str
    start: int
    end: int
    role: str
    """DEFINITION, AFTER or CONDITION."""
    node_index: int
    """The node in whose object it occurs."""


class RenameError(ValueError):
    """A rename that cannot be done; the message says why."""


def _plain_string_span(text: str, node: JsonNode | None) -> tuple[int, int] | None:
    """The body span of a closed string whose source spells its value exactly."""
    if node is None or node.kind != "string" or not node.closed:
        return None
    start, end = node.start + 1, node.end - 1
    if not isinstance(node.value, str) or text[start:end] != node.value or not node.value:
        return None
    return start, end


def occurrences(doc: ParsedDocument, design: Design | None = None) -> list[Occurrence]:
    """Every id occurrence in the document, in source order."""
    design = design or design_of(doc)
    text = doc.text
    found: list[Occurrence] = []
    for info in design.infos:
        obj = info.obj
        if obj is None:
            continue
        for member in obj.members or ():
            value = member.value
            if member.key == "id":
                span = _plain_string_span(text, value)
                if span:
                    found.append(Occurrence(value.value, *span, DEFINITION, info.index))
            elif member.key == "after" and value is not None and value.items:
                for item in value.items:
                    span = _plain_string_span(text, item)
                    if span:
                        found.append(Occurrence(item.value, *span, AFTER, info.index))
            elif member.key == "expression" and value is not None and value.kind == "string" \
                    and isinstance(value.value, str):
                match = _CONDITION_NODE.match(value.value)
                if match:
                    start = source_offset(text, value, match.start(1))
                    end = source_offset(text, value, match.end(1))
                    if text[start:end] == match.group(1):
                        found.append(Occurrence(match.group(1), start, end, CONDITION,
                                                info.index))
    found.sort(key=lambda o: o.start)
    return found


def occurrence_at(doc: ParsedDocument, offset: int,
                  design: Design | None = None) -> Occurrence | None:
    """The occurrence under the cursor (its ends included).

    Hover asks this on every request, right after an edit too: it descends only along
    the path to `offset` (expanding a handful of containers) instead of listing every
    occurrence of a 1 MB design.  Same answer as scanning `occurrences`.
    """
    design = design or design_of(doc)
    chain = doc.path_to_offset(offset)
    # root, Member nodes, the nodes array, a node object, Member, value[, item]
    if len(chain) < 6 or not isinstance(chain[1], Member) or not isinstance(chain[4], Member):
        return None
    obj = chain[3]
    info = _info_of(design, chain[2], obj)
    if info is None:
        return None
    member, value = chain[4], chain[5]
    if not isinstance(value, JsonNode) or member.value is not value:
        return None
    text = doc.text
    found: Occurrence | None = None
    if member.key == "id":
        span = _plain_string_span(text, value)
        if span:
            found = Occurrence(value.value, *span, DEFINITION, info.index)
    elif member.key == "after" and len(chain) > 6 and value.items:
        item = chain[6]
        span = _plain_string_span(text, item) if isinstance(item, JsonNode) else None
        if span:
            found = Occurrence(item.value, *span, AFTER, info.index)
    elif member.key == "expression" and value.kind == "string" and isinstance(value.value, str):
        match = _CONDITION_NODE.match(value.value)
        if match:
            start = source_offset(text, value, match.start(1))
            end = source_offset(text, value, match.end(1))
            if text[start:end] == match.group(1):
                found = Occurrence(match.group(1), start, end, CONDITION, info.index)
    if found is not None and found.start <= offset <= found.end:
        return found
    return None


def _info_of(design: Design, array: object, obj: object) -> NodeInfo | None:
    """The design node whose tree object is `obj`, an item of `array` (the `nodes` that
    counts); None for anything else (a duplicate `nodes`, a non-object item)."""
    if not isinstance(array, JsonNode) or not isinstance(obj, JsonNode) or not array.items:
        return None
    info = design.info_at(bisect_right(array.items, obj.start, key=lambda n: n.start) - 1)
    return info if info is not None and info.obj is obj else None


def definition(doc: ParsedDocument, offset: int, design: Design | None = None
               ) -> Occurrence | None:
    """Where the id under the cursor is defined (the first node with that id)."""
    design = design or design_of(doc)
    occ = occurrence_at(doc, offset, design)
    if occ is None:
        return None
    return next((o for o in occurrences(doc, design)
                 if o.role == DEFINITION and o.node_id == occ.node_id), None)


def references(doc: ParsedDocument, offset: int, *,
               include_declaration: bool = True, design: Design | None = None
               ) -> list[Occurrence]:
    """Every occurrence of the id under the cursor."""
    design = design or design_of(doc)
    occ = occurrence_at(doc, offset, design)
    if occ is None:
        return []
    return [o for o in occurrences(doc, design) if o.node_id == occ.node_id
            and (include_declaration or o.role != DEFINITION)]


def prepare_rename(doc: ParsedDocument, offset: int, design: Design | None = None
                   ) -> Occurrence | None:
    """The id under the cursor when it names a real node, else None (nothing to rename)."""
    design = design or design_of(doc)
    occ = occurrence_at(doc, offset, design)
    if occ is None or occ.node_id not in design.by_id:
        return None
    return occ


def rename(doc: ParsedDocument, offset: int, new_id: str, design: Design | None = None
           ) -> list[tuple[int, int, str]]:
    """Edits renaming the id under the cursor everywhere; RenameError when it cannot."""
    design = design or design_of(doc)
    occ = occurrence_at(doc, offset, design)
    if occ is None or occ.node_id not in design.by_id:
        raise RenameError("Only a node id can be renamed here")
    if not isinstance(new_id, str) or not _VALID_ID.fullmatch(new_id):
        raise RenameError(
            f"{new_id!r} is not a usable id: conditions can only name ids made of letters, "
            "digits, '_' and '-'")
    if new_id != occ.node_id and new_id in design.by_id:
        raise RenameError(f"a node with the id {new_id!r} already exists")
    return [(o.start, o.end, new_id) for o in occurrences(doc, design)
            if o.node_id == occ.node_id]
