"""The tree of a JSON text: nodes with their offsets, and the questions asked of it.

`jsontree.parse` makes a `ParsedDocument` for any string: valid JSON through the fast
path (`fast_path.py`: json.loads, then a container's children built on first use), anything
else through the tolerant parser (`tolerant_parser.py`).  Both make these nodes; the
queries here work on either.  Offsets are Python string indices (code points); see
positions.py for lines.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Any
from weakref import ref as _ref

__all__ = ["JsonNode", "Member", "SyntaxIssue", "ParsedDocument", "contains", "last_member",
           "path_of"]


class JsonNode:
    """One JSON value in the text.

    Attributes: kind ('object' | 'array' | 'string' | 'number' | 'true' | 'false' |
    'null' | 'invalid'); start (offset of the first character); end (one past the
    last; for an unclosed string/container: where recovery ended); value (scalars:
    the decoded Python value; a number too large to convert is None); members
    (objects: Members in source order, duplicates kept); items (arrays); parent;
    closed (False for an unterminated string or a container without its closer);
    member (the Member whose value this node is; None for items and the root).

    In a valid document a container is a `fast_path.LazyNode`: its children are found on
    first access of `members`/`items` (one level at a time, skipping nested values in C),
    so a finding deep in a 1 MB design does not pay for building the whole tree.

    `parent` and `member` point upwards through weak references: the tree has no
    reference cycles, so a replaced document is freed at once by reference
    counting instead of by a garbage-collector pass over every node.  They stay
    valid while the document (its root) is alive.
    """

    __slots__ = ("kind", "start", "end", "value", "_members", "_items", "_parent", "closed",
                 "_member", "__weakref__")

    _source: str | None = None
    """The text while a container's children are not built yet: only a `LazyNode` has one."""
    _py: Any = None
    """A `LazyNode`'s decoded value while not built, when that mirrors the text."""

    def __init__(self, kind: str, start: int, end: int, value: Any = None,
                 members: list[Member] | None = None, items: list[JsonNode] | None = None,
                 parent: JsonNode | None = None, closed: bool = True,
                 member: Member | None = None) -> None:
        self.kind = kind
        self.start = start
        self.end = end
        self.value = value
        self._members = members
        self._items = items
        self._parent = _ref(parent) if parent is not None else None
        self.closed = closed
        self._member = _ref(member) if member is not None else None

    @property
    def members(self) -> list[Member] | None:
        return self._members

    @property
    def items(self) -> list[JsonNode] | None:
        return self._items

    @property
    def parent(self) -> JsonNode | None:
        """The enclosing object or array (None for the root)."""
        parent = self._parent
        return parent() if parent is not None else None

    @parent.setter
    def parent(self, value: JsonNode | None) -> None:
        self._parent = _ref(value) if value is not None else None

    @property
    def member(self) -> Member | None:
        """The Member whose value this node is (None for array items and the root)."""
        member = self._member
        return member() if member is not None else None

    @member.setter
    def member(self, value: Member | None) -> None:
        self._member = _ref(value) if value is not None else None

    def __repr__(self) -> str:
        return f"JsonNode({self.kind}, {self.start}, {self.end})"


class Member:
    """`"key": value` in an object.

    key_start/key_end: the key's span including its quotes (or where an
    unterminated key ended); value: None when missing (`"key": ` then `,` or
    `}`); colon: offset of the ':' or None when it is missing; parent: the
    object (a weak reference, see JsonNode).
    """

    __slots__ = ("key", "key_start", "key_end", "value", "colon", "_parent", "__weakref__")

    def __init__(self, key: str, key_start: int, key_end: int, value: JsonNode | None,
                 colon: int | None, parent: JsonNode | None = None) -> None:
        self.key = key
        self.key_start = key_start
        self.key_end = key_end
        self.value = value
        self.colon = colon
        self._parent = _ref(parent) if parent is not None else None

    parent = JsonNode.parent
    """The object (a weak reference, as a node's parent)."""

    @property
    def start(self) -> int:
        return self.key_start

    @property
    def end(self) -> int:
        """End of the value, else of the colon, else of the key."""
        if self.value is not None:
            return self.value.end
        if self.colon is not None:
            return self.colon + 1
        return self.key_end

    def __repr__(self) -> str:
        return f"Member({self.key!r}, {self.key_start}, {self.end})"


@dataclass(slots=True)
class SyntaxIssue:
    msg: str
    start: int
    end: int


class ParsedDocument:
    """The text, its tree and its syntax issues (`jsontree.parse` makes one)."""

    __slots__ = ("text", "root", "errors", "_value", "_has_duplicates")

    def __init__(self, text: str, root: JsonNode | None, errors: list[SyntaxIssue], value: Any,
                 has_duplicates: bool) -> None:
        self.text = text
        self.root = root
        """The tree's root value; None when the text holds no value at all."""
        self.errors = errors
        """Syntax issues in source order of discovery (empty for valid JSON)."""
        self._value = value
        self._has_duplicates = has_duplicates

    def to_python(self) -> Any:
        """The recovered value: duplicate keys keep the last; invalid tokens and
        numbers too large to convert are None; members without a value are dropped."""
        return self._value

    # --- queries ---

    def node_at_path(self, path: tuple[str | int, ...] | list[str | int]) -> JsonNode | None:
        """The value at `path` (keys: the member that counts, i.e. the last one)."""
        node = self.root
        for step in path:
            if node is None:
                return None
            if isinstance(step, str):
                member = last_member(node, step)
                node = member.value if member is not None else None
            else:
                items = node.items
                if items is None or not 0 <= step < len(items):
                    return None
                node = items[step]
        return node

    def path_to_offset(self, offset: int) -> list[JsonNode | Member]:
        """Nodes and members enclosing `offset`, outermost first, innermost last.

        A closed string or container encloses the offsets strictly between its
        delimiters; a number, literal, invalid token or unclosed element also
        encloses its end (the cursor right after a half-typed word is "in" it).
        A Member is listed when the offset is in its key, colon or value span.
        """
        chain: list[JsonNode | Member] = []
        node = self.root
        while node is not None and contains(node, offset):
            chain.append(node)
            if node.members:
                member = _member_at(node.members, offset)
                if member is None:
                    break
                chain.append(member)
                node = member.value
            elif node.items:
                node = _item_at(node.items, offset)
            else:
                break
        return chain

    def duplicate_keys(self) -> list[Member]:
        """Members whose key appears again later in the same object (the ones that lose)."""
        if not self._has_duplicates:
            return []
        found: list[Member] = []
        root = self.root
        stack = [root] if root is not None else []
        while stack:
            node = stack.pop()
            if node._source is not None and node._py is not None:
                continue  # not built yet and known to mirror a decoded value: no repeats
            if node.members is not None:
                last: dict[str, Member] = {}
                for member in node.members:
                    last[member.key] = member
                    if member.value is not None:
                        stack.append(member.value)
                if len(last) != len(node.members):
                    found.extend(m for m in node.members if last[m.key] is not m)
            elif node.items:
                stack.extend(node.items)
        found.sort(key=lambda m: m.key_start)
        return found


def contains(node: JsonNode, offset: int) -> bool:
    """Whether `offset` is inside `node` (see ParsedDocument.path_to_offset)."""
    if node.closed and node.kind in ("object", "array", "string"):
        return node.start < offset < node.end
    return node.start <= offset <= node.end


def last_member(node: JsonNode, key: str) -> Member | None:
    """The member of object `node` that counts for `key` (the last of that name)."""
    if node.members is None:
        return None
    for member in reversed(node.members):
        if member.key == key:
            return member
    return None


def _member_at(members: list[Member], offset: int) -> Member | None:
    index = bisect_right(members, offset, key=lambda m: m.key_start) - 1
    if index < 0:
        return None
    member = members[index]
    return member if member.key_start <= offset <= member.end else None


def _item_at(items: list[JsonNode], offset: int) -> JsonNode | None:
    index = bisect_right(items, offset, key=lambda n: n.start) - 1
    if index < 0:
        return None
    item = items[index]
    return item if contains(item, offset) else None


def path_of(target: JsonNode | Member) -> tuple[str | int, ...]:
    """The path from the root to a node or member, e.g. ("nodes", 3, "after", 0)."""
    steps: list[str | int] = []
    node: JsonNode | None
    if isinstance(target, Member):
        steps.append(target.key)
        node = target.parent
    else:
        node = target
    while node is not None and node.parent is not None:
        parent = node.parent
        if node.member is not None:
            steps.append(node.member.key)
        elif parent.items is not None:
            index = bisect_right(parent.items, node.start, key=lambda n: n.start) - 1
            steps.append(index)
        node = parent
    steps.reverse()
    return tuple(steps)
