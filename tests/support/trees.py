"""Tree checks shared by the parser's and the carry-over's tests."""

from __future__ import annotations

import json

from hwf_lsp.jsontext.jsontree import JsonNode, ParsedDocument


def check_tree(doc: ParsedDocument) -> None:
    """Every node lies inside its parent, children in order, all within the text."""
    n = len(doc.text)
    stack = [doc.root] if doc.root is not None else []
    while stack:
        node = stack.pop()
        assert 0 <= node.start <= node.end <= n
        children: list[JsonNode] = []
        if node.members is not None:
            previous = node.start
            for member in node.members:
                assert previous <= member.key_start <= member.key_end <= member.end <= node.end
                previous = member.end
                assert member.parent is node
                if member.value is not None:
                    assert member.value.parent is node and member.value.member is member
                    children.append(member.value)
        elif node.items is not None:
            previous = node.start
            for item in node.items:
                assert previous <= item.start and item.end <= node.end
                assert item.parent is node
                previous = item.end
                children.append(item)
        stack.extend(children)


def same_tree(left: JsonNode, right: JsonNode, text: str, valid: bool = True) -> None:
    """The two trees have the same nodes: kinds, spans, keys, string values (decoded from
    `text` when it is valid)."""
    stack = [(left, right)]
    while stack:
        a, b = stack.pop()
        if a is None or b is None:  # a member without a value
            assert a is b
            continue
        assert (a.kind, a.start, a.end, a.closed) == (b.kind, b.start, b.end, b.closed)
        if a.kind == "string":
            assert a.value == b.value
            if valid:
                assert a.value == json.loads(text[a.start : a.end])
        if a.members is not None:
            assert [(m.key, m.key_start, m.key_end, m.colon) for m in a.members] == \
                [(m.key, m.key_start, m.key_end, m.colon) for m in b.members]
            stack.extend((m.value, n.value) for m, n in zip(a.members, b.members, strict=True))
        if a.items is not None:
            stack.extend(zip(a.items, b.items, strict=True))

