"""cursor_context: role, path, key, string and prefix at the cursor, in valid and broken JSON."""

from __future__ import annotations

import pytest

from hwf_lsp.analysis.context import ITEM, KEY, NONE, VALUE, cursor_context
from hwf_lsp.jsontext.jsontree import parse

N = '{"name": "d", "nodes": [{"id": "t", "type": "trigger"}, '

# (text with `|`, role, path, key, in_string, prefix)
CASES = [
    (N + '{"id": "a", "type": "ag|"}]}', VALUE, ("nodes", 1), "type", True, "ag"),
    (N + '{"id": "a", "type": "ag|', VALUE, ("nodes", 1), "type", True, "ag"),
    (N + '{"id": "a", "type": |}]}', VALUE, ("nodes", 1), "type", False, ""),
    (N + '{"id": "a", "ty|', KEY, ("nodes", 1), "ty", True, "ty"),
    (N + '{"id": "a", typ|}]}', KEY, ("nodes", 1), None, False, "typ"),
    (N + '{"id": "a", "after": ["|"]}]}', ITEM, ("nodes", 1, "after"), None, True, ""),
    (N + '{"id": "a", "after": [|]}]}', ITEM, ("nodes", 1, "after"), None, False, ""),
    (N + "|]}", ITEM, ("nodes",), None, False, ""),
    (N + '{"id": "a" "ty|\n"x": 1}]}', KEY, ("nodes", 1), None, True, "ty"),
    (N + '{"id": "a", "expression": "out.b|', VALUE, ("nodes", 1), "expression", True,
     "out.b"),
    (N + '{"id": "a", "type": "agent"|}]}', NONE, ("nodes", 1), None, False, ""),
    (N + '{"id": "a", "type": "agent", |}]}', KEY, ("nodes", 1), None, False, ""),
    ('{"name": "d", |}', KEY, (), None, False, ""),
    ('{"name": "x\\"y|"}', VALUE, (), "name", True, 'x\\"y'),
    ("|", NONE, (), None, False, ""),
    ("[[[[|", ITEM, (0, 0, 0), None, False, ""),
]


@pytest.mark.parametrize(("source", "role", "path", "key", "in_string", "prefix"), CASES)
def test_cursor_context(source, role, path, key, in_string, prefix):
    offset = source.index("|")
    text = source[:offset] + source[offset + 1:]
    ctx = cursor_context(parse(text), offset)
    assert (ctx.role, ctx.path, ctx.key, ctx.in_string, ctx.prefix) == (
        role, path, key, in_string, prefix)


def test_design_node_is_found():
    text = N + '{"id": "a", "after": ["t"]}]}'
    ctx = cursor_context(parse(text), text.index('"t"]') + 1)
    assert ctx.node_index == 1 and ctx.in_after


@pytest.mark.parametrize("text", ["", "{", '{"', '{"a"', '{"a":', '"', "[", "]]]", "\\", '"\\'])
def test_any_offset_of_junk_never_raises(text):
    """Any offset, even outside the text, gives a context clamped into it whose token
    spans the cursor and whose role is one of the four."""
    doc = parse(text)
    for offset in range(-1, len(text) + 2):
        ctx = cursor_context(doc, offset)
        clamped = max(0, min(offset, len(text)))
        assert ctx.offset == clamped
        assert 0 <= ctx.token_start <= clamped <= max(ctx.token_end, clamped) <= len(text)
        assert ctx.role in (KEY, VALUE, ITEM, NONE)
        assert ctx.prefix == (text[ctx.token_start + 1:clamped] if ctx.in_string
                              else text[ctx.token_start:clamped])
