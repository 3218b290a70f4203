"""The canvas's edits of a design, as minimal text edits of its current text.

Text in (a parsed document), offsets out: the language server sends them to the
editor with `workspace/applyEdit` (the `hwf.edit.*` commands, docs/commands.md), so
the canvas never writes the file and the editor's undo undoes each edit.  Every byte
outside the member, entry or node an edit is about stays as it was, and inserted text
follows the design's own layout (json_edits.py).  Only valid JSON is edited: on broken
text the canvas shows a stale graph, and an edit of it would land in the wrong place.

Refusals are `DesignEditError`s saying why; nothing is edited then.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..jsontext.edits import (
    Edit,
    as_json,
    colon_of,
    insert_item,
    insert_member,
    remove_entries,
    render_like,
    replace_value,
)
from ..jsontext.jsontree import JsonNode, ParsedDocument
from ..jsontext.positions import LineIndex
from ..rules.graph import would_create_cycle
from ..rules.vocabulary import (
    KINDS,
    NOTE,
    STEP_KINDS,
    TRIGGER,
    required_payloads,
)
from .design import Design, NodeInfo, design_of, has_output
from .navigation import RenameError, rename
from .new_node import body_fields, new_node_id, starting_value

__all__ = ["DesignEdit", "DesignEditError", "add_node", "connect", "delete_node",
           "disconnect", "remove_field", "rename_node", "set_field"]


class DesignEditError(ValueError):
    """An edit that cannot be made; the message says why."""


@dataclass(frozen=True, slots=True)
class DesignEdit:
    edits: list[Edit] = field(default_factory=list)
    id: str | None = None
    """The node created or renamed, if any."""


# --- what every edit needs ----------------------------------------------------------


def _editable(doc: ParsedDocument) -> tuple[Design, JsonNode]:
    """The design and its `nodes` array, or why it cannot be edited."""
    if doc.errors:
        issue = doc.errors[0]
        line, column = LineIndex(doc.text).position(min(issue.start, len(doc.text)), "utf-32")
        raise DesignEditError(f"the design is not valid JSON ({issue.msg} at line {line + 1}, "
                              f"column {column + 1}): fix the text first")
    nodes = doc.node_at_path(("nodes",))
    if nodes is None or nodes.kind != "array":
        raise DesignEditError("the design has no \"nodes\" list to edit")
    return design_of(doc), nodes


def _node(design: Design, node_id: Any, what: str = "node") -> NodeInfo:
    info = design.by_id.get(node_id) if isinstance(node_id, str) else None
    if info is None or info.obj is None:
        raise DesignEditError(f"{what} {node_id!r} is not a node of this design")
    return info


def _after_list(info: NodeInfo) -> JsonNode | None:
    """The node's `after` array (the member that counts); refused when it is no list."""
    member = info.member("after")
    if member is None:
        return None
    if member.value is None or member.value.kind != "array":
        raise DesignEditError(f"the after of {info.id!r} is not a list: fix it in the text")
    return member.value


def _entries_naming(array: JsonNode, node_id: str) -> set[int]:
    return {i for i, item in enumerate(array.items or ())
            if item.kind == "string" and item.value == node_id}


# --- the edits -------------------------------------------------------------------------


def connect(doc: ParsedDocument, from_id: str, to_id: str) -> DesignEdit:
    """`to_id` runs after `from_id`: append `from_id` to its `after` (made when missing)."""
    design, _ = _editable(doc)
    source, target = _node(design, from_id, "from"), _node(design, to_id, "to")
    if from_id == to_id:
        raise DesignEditError(f"{from_id!r} cannot run after itself")
    if source.kind == NOTE:
        raise DesignEditError(f"{from_id!r} is a note: notes never run, nothing runs after one")
    if target.kind in (NOTE, TRIGGER):
        raise DesignEditError(f"{to_id!r} is a {target.kind}: it runs after nothing")
    after = _after_list(target)
    if after is not None and _entries_naming(after, from_id):
        raise DesignEditError(f"{to_id!r} already runs after {from_id!r}")
    if would_create_cycle(design.nodes, to_id, from_id):
        raise DesignEditError(f"{to_id!r} cannot run after {from_id!r}: {from_id!r} already "
                              f"runs after {to_id!r}, that would make a cycle")
    if after is None:
        return DesignEdit([insert_member(doc.text, target.obj, "after", as_json([from_id]))])
    return DesignEdit([insert_item(doc.text, after, as_json(from_id))])


def disconnect(doc: ParsedDocument, from_id: str, to_id: str) -> DesignEdit:
    """Remove `from_id` from `to_id`'s `after` (every entry naming it); an emptied list
    stays, as `[]`."""
    design, _ = _editable(doc)
    target = _node(design, to_id, "to")
    after = _after_list(target)
    doomed = _entries_naming(after, from_id) if after is not None else set()
    if not doomed:
        raise DesignEditError(f"{to_id!r} does not run after {from_id!r}")
    return DesignEdit(remove_entries(after, doomed))


def delete_node(doc: ParsedDocument, node_id: str) -> DesignEdit:
    """Remove the node's object and every `after` entry naming it.  Conditions reading
    it stay: the rulebook then says they name a missing node."""
    design, nodes = _editable(doc)
    info = _node(design, node_id)
    edits = remove_entries(nodes, {info.index})
    for other in design.infos:
        if other is info or other.obj is None:
            continue
        member = other.member("after")
        after = member.value if member is not None else None
        if after is not None and after.kind == "array":
            edits.extend(remove_entries(after, _entries_naming(after, node_id)))
    return DesignEdit(edits)


def rename_node(doc: ParsedDocument, node_id: str, new_id: str) -> DesignEdit:
    """textDocument/rename on the node's id: the id, every `after` entry, every condition."""
    design, _ = _editable(doc)
    info = _node(design, node_id)
    id_member = info.member("id")
    try:
        edits = rename(doc, id_member.value.start + 1, new_id)
    except RenameError as exc:
        raise DesignEditError(str(exc)) from None
    return DesignEdit(edits, new_id)


def set_field(doc: ParsedDocument, node_id: str, name: str, value: Any) -> DesignEdit:
    """Set one field to a JSON value: its value text replaced, else the member added last."""
    design, _ = _editable(doc)
    info = _node(design, node_id)
    if not isinstance(name, str) or not name:
        raise DesignEditError("the field must be a non-empty string")
    if name == "id":
        raise DesignEditError("an id is changed by renaming the node (hwf.edit.renameNode), "
                              "which updates every reference to it")
    try:
        value_json = as_json(value, colon_of(doc.text, info.obj))
    except (TypeError, ValueError) as exc:
        raise DesignEditError(f"the value is not JSON: {exc}") from None
    member = info.member(name)
    if member is not None and member.value is not None:
        return DesignEdit([replace_value(member.value, value_json)])
    return DesignEdit([insert_member(doc.text, info.obj, name, value_json)])


def remove_field(doc: ParsedDocument, node_id: str, name: str) -> DesignEdit:
    """Remove an optional field: every member with that key (a duplicate key too, so the
    field is gone, not replaced by its ignored copy), each with one separator.  `id`,
    `type` and the kind's required fields stay: a node cannot do without them."""
    design, _ = _editable(doc)
    info = _node(design, node_id)
    if not isinstance(name, str) or not name:
        raise DesignEditError("the field must be a non-empty string")
    if name in ("id", "type"):
        raise DesignEditError(f"every node has {'an' if name == 'id' else 'a'} {name}: "
                              f"it cannot be removed")
    if any(f.name == name for f in required_payloads(info.kind or "")):
        raise DesignEditError(f"the {info.kind} {node_id!r} needs its {name}: it cannot be "
                              "removed")
    members = info.obj.members or []
    doomed = {i for i, member in enumerate(members) if member.key == name}
    if not doomed:
        raise DesignEditError(f"{node_id!r} has no field {name!r}")
    return DesignEdit(remove_entries(info.obj, doomed))


def add_node(doc: ParsedDocument, kind: str, after_id: str | None = None) -> DesignEdit:
    """A node of `kind` as the completion's node template writes it (`new_node`: a fresh
    id `agent1`, `agent2`…; its main field, empty where the author's words go), placed
    after `after_id`'s object (else last) and running after it.

    Laid out like the nearest node of the same kind (else `after_id`'s, else the last
    node), so a design of one-line nodes gets a one-line node."""
    if kind not in KINDS:
        raise DesignEditError(f"{kind!r} is not a kind: one of {', '.join(KINDS)}")
    design, nodes = _editable(doc)
    parent = _node(design, after_id, "after") if after_id is not None else None
    new_id = new_node_id(design, kind)
    upstream = parent.id if parent is not None and has_output(parent.kind) else None
    pairs = [("id", as_json(new_id)), ("type", as_json(kind))]
    pairs += [(f.name, as_json(starting_value(f, None, upstream))) for f in body_fields(kind)]
    if parent is not None and kind in STEP_KINDS and parent.kind != NOTE:
        pairs.append(("after", as_json([parent.id])))
    items = nodes.items or []
    position = parent.index if parent is not None else len(items) - 1
    template = _template(design, kind, position)
    text = render_like(doc.text, template, pairs)
    return DesignEdit([insert_item(doc.text, nodes, text, position)], new_id)


def _template(design: Design, kind: str, position: int) -> JsonNode | None:
    """The node object a new one is laid out like (see add_node)."""
    objects = [info for info in design.infos if info.obj is not None]
    if not objects:
        return None
    same = [info for info in objects if info.kind == kind]
    if same:
        return min(same, key=lambda info: abs(info.index - position)).obj
    near = [info for info in objects if info.index == position]
    return (near or objects[-1:])[0].obj
