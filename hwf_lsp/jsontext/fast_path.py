"""The fast path: valid JSON (the common case) decoded by `json.loads` in C, and its tree
built lazily, a container's children on first use (`LazyNode`).

A keystroke in a 1 MB design pays for the C decode and the containers the check looks
into, not for a tree of every value: children are found one level at a time, nested
values skipped in C, and the items of an array of objects (a design's `nodes`) found by
the boundaries between them (`_object_spans`).
"""

from __future__ import annotations

import json
import re
from json.decoder import scanstring as _scanstring
from json.scanner import make_scanner
from typing import Any
from weakref import ref as _ref

from .tree import JsonNode, Member, ParsedDocument, last_member

__all__ = ["DuplicateWatch", "LazyNode", "StrictDecoder", "end_before_space", "lazy_container",
           "peek_member", "reject_constant", "valid_document"]

SKIP_WS = re.compile(r"[ \t\n\r]*")
_MEMBER_HEAD = re.compile(r'"(?:[^"\\]|\\.)*(")[ \t\n\r]*(:)[ \t\n\r]*', re.S)
"""A key of valid JSON, its colon and the blanks up to its value (`peek_member`): groups 1
and 2 are the key's closing quote and the colon."""
_COMMA = re.compile(r"[ \t\n\r]*,?[ \t\n\r]*")
"""The blanks and the comma between a member's value and the next key."""
_WS = " \t\n\r"


def reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


class DuplicateWatch:
    """object_pairs_hook for json.loads: builds dicts as json.loads does, notes duplicates."""

    __slots__ = ("seen",)

    def __init__(self) -> None:
        self.seen = False

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result = dict(pairs)
        if len(result) != len(pairs):
            self.seen = True
        return result


class StrictDecoder(json.JSONDecoder):
    """Decodes exactly what the builder accepts: no NaN/Infinity, duplicates watched."""

    def __init__(self, watch: DuplicateWatch) -> None:
        super().__init__(parse_constant=reject_constant, object_pairs_hook=watch)


_SCAN_ONCE = make_scanner(json.JSONDecoder())
"""C scanner: (value, end) of the JSON value at an offset; used to skip nested values."""
_SCALAR_KIND = {"\"": "string", "t": "true", "f": "false", "n": "null"}


class LazyNode(JsonNode):
    """An object or array of valid text whose children are built on first use of `members`
    or `items`, once.  No lock: a document is used by one thread at a time (the server's
    worker hands an analysis to the event loop and never touches it again), so a node's
    children are built once and found by identity in their parent's list."""

    __slots__ = ("_source", "_py")

    @property
    def members(self) -> list[Member] | None:
        if self._source is not None:
            _expand(self)
        return self._members

    @property
    def items(self) -> list[JsonNode] | None:
        if self._source is not None:
            _expand(self)
        return self._items


def _lazy_value(text: str, pos: int, parent: JsonNode | None, end: int = -1,
                py: Any = None) -> JsonNode:
    """The node for the (valid) value at `pos`; a container's children come later.

    `end`, when known (the last child of a container ends where its parent's
    closer does), saves scanning the value.  `py` is the container's decoded
    value when it is known to mirror the text (no duplicate keys): its length
    tells which child is the last one.
    """
    first = text[pos]
    parent_ref = _ref(parent) if parent is not None else None
    if first == "{" or first == "[":
        if end < 0:
            end = _SCAN_ONCE(text, pos)[1]
        return lazy_container("object" if first == "{" else "array", pos, end, text,
                              py if isinstance(py, dict | list) else None, parent_ref)
    value, end = _SCAN_ONCE(text, pos)
    return JsonNode(_SCALAR_KIND.get(first, "number"), pos, end, value, parent=parent)


def end_before_space(text: str, pos: int) -> int:
    """Offset just past the last non-whitespace character before `pos`."""
    while pos > 0 and text[pos - 1] in _WS:
        pos -= 1
    return pos


_OBJECTS_APART = re.compile(r"\}[ \t\n\r]*,[ \t\n\r]*\{")
"""Where one object ends and the next begins: `}`, a comma and `{`, JSON blanks between."""


def _object_spans(text: str, first: int, last_end: int,
                  count: int) -> tuple[list[int], list[int]] | None:
    """(starts, ends) of the items of a valid array of `count` objects, from the first
    item's start to the last one's end, found by the count - 1 boundaries between them;
    None when the count differs.  One C regex pass: 3 ms for a 5,000-node design, where
    scanning each item to its end (it is decoded again) took ~25 ms.

    Why a count of n - 1 proves the spans: every two neighbouring items are separated by
    `}` blanks `,` blanks `{` outside any string, and no other match can overlap one of
    those (a match ends with `{`, a boundary starts with `}`), so all n - 1 are found; a
    match inside a string or between nested objects would make more."""
    starts = [first]
    ends = []
    for match in _OBJECTS_APART.finditer(text, first, last_end):
        ends.append(match.start() + 1)
        starts.append(match.end() - 1)
    if len(starts) != count:
        return None
    ends.append(last_end)
    return starts, ends


def _object_items(node: JsonNode, text: str, first: int, last_end: int,
                  py: list[Any]) -> list[JsonNode] | None:
    """The items of a valid array of objects, by `_object_spans`, or None."""
    spans = _object_spans(text, first, last_end, len(py))
    if spans is None:
        return None
    parent_ref = _ref(node)
    lazy = lazy_container
    return [lazy("object", start, end, text, sub, parent_ref)
            for start, end, sub in zip(*spans, py, strict=True)]


def lazy_container(kind: str, start: int, end: int, source: str, py: Any,
                    parent_ref: Any) -> LazyNode:
    """An object or array of valid text whose children are built when asked (`py`: its
    value, when that mirrors the text; `parent_ref`: a weak reference to its parent, shared
    by its siblings).  Every slot set here, no `__init__` call: a 5,000-node design makes
    5,000 of these per keystroke, at 0.3 us each instead of 0.5-0.6 us
    (tests/jsontext/test_jsontree.py holds it to a LazyNode's slots)."""
    node = _NEW_NODE(LazyNode)
    node.kind = kind
    node.start = start
    node.end = end
    node.value = node._members = node._items = node._member = None
    node.closed = True
    node._parent = parent_ref
    node._source = source
    node._py = py
    return node


_NEW_NODE = LazyNode.__new__


def _expand(node: LazyNode) -> None:
    """Build one level of children of a container from text known to be valid JSON, once.
    `_lazy_value` is inlined and the parent's weak reference shared by all children: checks
    expand a few dozen containers on every keystroke."""
    text = node._source
    py = node._py
    skip = SKIP_WS.match
    scan = _SCAN_ONCE
    scalar_kind = _SCALAR_KIND
    new_node = JsonNode
    lazy = lazy_container
    parent_ref = _ref(node)
    pos = skip(text, node.start + 1).end()
    last = len(py) - 1 if py is not None else -1
    last_end = end_before_space(text, node.end - 1) if py is not None else -1
    is_array = node.kind == "array"
    if is_array and py and all(type(item) is dict for item in py):
        # an array of objects (a design's `nodes`): its items' spans from the boundaries
        # between them, not by decoding each item again (50 nodes: 0.18 -> 0.10 ms)
        found = _object_items(node, text, pos, last_end, py)
        if found is not None:
            node._items = found
            node._source = node._py = None
            return
    index = 0
    if is_array:
        items: list[JsonNode] = []
        closer = "]"
    else:
        members: list[Member] = []
        closer = "}"
    if text[pos] != closer:
        while True:
            if not is_array:
                key, key_end = _scanstring(text, pos + 1, True)
                colon = skip(text, key_end).end()
                key_start = pos
                pos = skip(text, colon + 1).end()
            first = text[pos]
            if first == "{" or first == "[":
                end = last_end if index == last else scan(text, pos)[1]
                sub = None if py is None else py[index] if is_array else py[key]
                child = lazy("object" if first == "{" else "array", pos, end, text,
                             sub if isinstance(sub, dict | list) else None, parent_ref)
            else:
                value, end = scan(text, pos)
                child = new_node(scalar_kind.get(first, "number"), pos, end, value)
                child._parent = parent_ref
            if is_array:
                items.append(child)
            else:
                member = Member(key, key_start, key_end, child, colon)
                member._parent = parent_ref
                child._member = _ref(member)
                members.append(member)
            pos = skip(text, end).end()
            if text[pos] != ",":
                break
            pos = skip(text, pos + 1).end()
            index += 1
    if is_array:
        node._items = items
    else:
        node._members = members
    node._source = node._py = None


def peek_member(node: JsonNode | None, key: str) -> Member | None:
    """The member of object `node` that counts for `key` (the last of that name), for its
    offsets.  In an object whose members are not built yet, and whose decoded value mirrors
    the text, only the members before it are skipped (in C) and none is built: locating a
    finding needs one member of each node it names, and a keystroke locates a few dozen.
    Such a member is not one of `node.members` (built later, when asked): use it for where
    it is, never for identity."""
    if node is None:
        return None
    py = node._py
    if node._source is None or not isinstance(py, dict):
        return last_member(node, key)
    if key not in py:
        return None
    text = node._source
    head = _MEMBER_HEAD.match
    comma = _COMMA.match
    pos = SKIP_WS.match(text, node.start + 1).end()
    for name in py:  # a mirrored object's keys are its members, in source order
        found = head(text, pos)
        if name == key:
            member = Member(key, pos, found.end(1), None, found.start(2), node)
            member.value = _lazy_value(text, found.end(), node, -1, py[key])
            return member
        pos = comma(text, _SCAN_ONCE(text, found.end())[1]).end()
    return None


def valid_document(text: str, value: Any, has_duplicates: bool) -> ParsedDocument:
    """The document of a text `json.loads` decoded to `value`: no issues, its root built
    lazily."""
    start = SKIP_WS.match(text).end()
    end = end_before_space(text, len(text))
    root = _lazy_value(text, start, None, end, None if has_duplicates else value)
    return ParsedDocument(text, root, [], value, has_duplicates)
