"""Where the cursor is, in design terms: which node, key or value, which string, what prefix.

Completion, hover and navigation all start here.  The tree from `jsontree`
tells the structure up to the cursor (everything before the cursor is usually
well formed while typing); the text itself tells whether the cursor sits in a
string or a half-typed bare word, because a string the parser had to leave out
of the tree (a missing comma before it) is still a string to the person typing.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from ..jsontext.jsontree import JsonNode, Member, ParsedDocument, contains, path_of

KEY, VALUE, ITEM, NONE = "key", "value", "item", "none"

_STRING_ON_LINE = re.compile(r'"(?:[^"\\\r\n]|\\.)*"?')
_WORD_BEFORE = re.compile(r"[A-Za-z0-9_.+\-]*\Z")
_WORD_AFTER = re.compile(r"[A-Za-z0-9_.+\-]*")
_LOOKBACK = 256


@dataclass(slots=True)
class CursorContext:
    offset: int
    role: str
    """KEY (a property name belongs here), VALUE (of `key`), ITEM (of an array) or NONE."""
    container: JsonNode | None
    """The object (KEY/VALUE) or array (ITEM) the cursor is in."""
    path: tuple[str | int, ...]
    """Path of `container` from the root, e.g. ("nodes", 2, "after")."""
    key: str | None = None
    """VALUE: the member's key; KEY: the key being typed over (if any)."""
    member: Member | None = None
    in_string: bool = False
    string_closed: bool = False
    token_start: int = 0
    """Start of what a completion replaces (the opening quote of a string)."""
    token_end: int = 0
    """End of what a completion replaces (past the closing quote when there is one)."""
    prefix: str = ""
    """Raw source text from the token start (after the quote) to the cursor."""
    has_colon: bool = False
    """KEY: the member already has its ':' (insert the key only)."""
    string_node: JsonNode | None = None
    """The tree's string node under the cursor, when the tree has one."""
    design_node: JsonNode | None = None
    """The object of `nodes[i]` enclosing the cursor, and its index."""
    node_index: int | None = None
    source: str = ""
    """The whole document text (a reference, for looking around the cursor)."""

    @property
    def in_nodes_array(self) -> bool:
        return self.role == ITEM and self.path == ("nodes",)

    @property
    def in_design_node(self) -> bool:
        """The cursor is directly in a node object (its keys or their values)."""
        return self.design_node is not None and self.container is self.design_node

    @property
    def in_after(self) -> bool:
        return (self.role == ITEM and len(self.path) == 3 and self.path[0] == "nodes"
                and self.path[2] == "after")


def design_node_of(node: JsonNode | None) -> tuple[JsonNode | None, int | None]:
    """The `nodes[i]` object enclosing `node` and i, else (None, None)."""
    current = node
    while current is not None:
        parent = current.parent
        if (parent is not None and parent.kind == "array" and parent.member is not None
                and parent.member.key == "nodes" and parent.parent is not None
                and parent.parent.parent is None and current.kind == "object"):
            items = parent.items or []
            for index, item in enumerate(items):
                if item is current:
                    return current, index
            return None, None
        current = parent
    return None, None


def _string_at(text: str, offset: int, scan_from: int = 0) -> tuple[int, int, bool] | None:
    """(start, end, closed) of the string literal the cursor is inside, from the line alone.

    JSON strings cannot span lines, so the line up to the cursor decides it.  The
    scan starts at `scan_from` when that is later (a point known to be outside any
    string), so a megabyte-long minified line is not rescanned per keystroke.
    """
    line_start = max(text.rfind("\n", scan_from, offset), text.rfind("\r", scan_from, offset),
                     scan_from - 1) + 1
    last = None
    for match in _STRING_ON_LINE.finditer(text, line_start, offset):
        last = match
    if last is None or last.end() != offset:
        return None
    body = last.group()
    if len(body) >= 2 and body.endswith('"') and not _escaped_quote(body):
        return None  # the cursor is right after a closing quote
    start = last.start()
    closing = _STRING_ON_LINE.match(text, start)
    end = closing.end() if closing else offset
    closed = end > start + 1 and text[end - 1] == '"' and end - 1 >= offset
    return start, end, closed


def _escaped_quote(body: str) -> bool:
    """Whether the final quote of `body` is escaped (an odd run of backslashes before it)."""
    run = 0
    index = len(body) - 2
    while index >= 1 and body[index] == "\\":
        run += 1
        index -= 1
    return run % 2 == 1


def _previous_char(text: str, offset: int) -> str:
    index = offset - 1
    while index >= 0 and text[index] in " \t\r\n":
        index -= 1
    return text[index] if index >= 0 else ""


def cursor_context(doc: ParsedDocument, offset: int) -> CursorContext:
    """The context at `offset` (clamped to the text); never raises on any document."""
    text = doc.text
    offset = max(0, min(offset, len(text)))
    container, member, string_node = _innermost(doc.path_to_offset(offset))
    start, end, closed, in_string = _token_span(text, offset, container, string_node)
    prefix = text[start + 1 : offset] if in_string else text[start:offset]
    ctx = CursorContext(offset=offset, role=NONE, container=container, path=(),
                        in_string=in_string, string_closed=closed, token_start=start,
                        token_end=end, prefix=prefix, string_node=string_node,
                        source=text)
    if container is None:
        return ctx
    ctx.path = path_of(container)
    ctx.design_node, ctx.node_index = design_node_of(container)
    if container.kind == "array":
        ctx.role = ITEM
        return ctx
    # an object: key or value?
    if member is not None and _role_from_member(ctx, member):
        return ctx
    before = _previous_char(text, start)
    if before == ":":
        owner = _member_with_colon(container, start)
        if owner is not None:
            ctx.role, ctx.key, ctx.member = VALUE, owner.key, owner
        return ctx
    ctx.role = KEY
    return ctx


def _innermost(chain: list) -> tuple[JsonNode | None, Member | None, JsonNode | None]:
    """(innermost container, its member under the cursor, string under the cursor)."""
    container: JsonNode | None = None
    member: Member | None = None
    string_node: JsonNode | None = None
    for element in chain:
        if isinstance(element, Member):
            member = element
            continue
        if element.kind in ("object", "array"):
            container = element
            member = None
        elif element.kind == "string":
            string_node = element
    return container, member, string_node


def _token_span(text: str, offset: int, container: JsonNode | None,
                string_node: JsonNode | None) -> tuple[int, int, bool, bool]:
    """(start, end, string closed, in a string) of the token under the cursor."""
    if string_node is not None:
        return string_node.start, string_node.end, string_node.closed, True
    found = _string_at(text, offset, _outside_strings_before(text, container, offset))
    if found is not None:
        start, end, closed = found
        return start, end, closed, True
    window = text[max(0, offset - _LOOKBACK):offset]
    word = _WORD_BEFORE.search(window)
    after = _WORD_AFTER.match(text, offset)
    return (offset - (len(word.group()) if word else 0), after.end() if after else offset,
            False, False)


def _role_from_member(ctx: CursorContext, member: Member) -> bool:
    """Set the role from the member under the cursor; False when the member doesn't say."""
    text, offset = ctx.source, ctx.offset
    ctx.member = member
    if member.key_start <= offset <= member.key_end and (
        member.colon is None or offset <= member.colon
    ) and (offset < member.key_end or not _closed_key(text, member)):
        ctx.role = KEY
        ctx.key = member.key
        ctx.has_colon = member.colon is not None
        if not ctx.in_string:  # cursor on a key's closing quote edge
            ctx.token_start, ctx.token_end = member.key_start, member.key_end
        return True
    value = member.value
    if value is not None and offset >= value.end and not contains(value, offset):
        return True  # right after a complete value: nothing belongs here
    if member.colon is not None and offset > member.colon:
        ctx.role = VALUE
        ctx.key = member.key
        return True
    return offset == member.key_end  # role NONE


def _outside_strings_before(text: str, container: JsonNode | None, offset: int) -> int:
    """A late offset before the cursor that is surely outside any string literal."""
    if container is None:
        return 0
    children: list = container.members or container.items or []
    index = bisect_right(children, offset, key=lambda c: c.start) - 1
    while index >= 0:
        child = children[index]
        if child.end <= offset:
            if isinstance(child, Member):
                last = child.value
                closed = last.closed if last is not None else _closed_key(text, child)
            else:
                closed = child.closed
            if closed:
                return child.end
        index -= 1
    return container.start + 1


def _closed_key(text: str, member: Member) -> bool:
    return member.key_end - member.key_start >= 2 and text[member.key_end - 1] == '"'


def _member_with_colon(obj: JsonNode, before: int) -> Member | None:
    found = None
    for member in obj.members or ():
        if member.colon is not None and member.colon < before:
            found = member
    return found
