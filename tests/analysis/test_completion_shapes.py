"""Items every client accepts (issue 29): accepted the way a client that keeps the text
after the cursor does (Neovim: the edit ends at the cursor), the first item and every item
leave valid JSON; plain text has no whitespace and no placeholder prose."""

from __future__ import annotations

import json

import pytest

from hwf_lsp.analysis.completion_items import complete
from hwf_lsp.jsontext.jsontree import parse

T = '{"name":"d","nodes":[{"id":"start","type":"trigger"},'
A = '{"id":"a","type":"agent","prompt":"p","after":["start"]},'

# (case, text with the cursor |, the first item's label, the text around it once accepted)
CASES = [
    ("value before the closing quote", T + '{"id":"o","type":"output","deliver":"c|"}]}',
     "notification", '"deliver":"notification"}'),
    ("kind before the closing quote", T + '{"id":"o","type":"ag|"}]}', "agent",
     '"type":"agent"}'),
    ("no second trigger", T + '{"id":"o","type":"|"}]}', "agent", '"type":"agent"}'),
    ("field in a closed string", T + '{"id":"o","type":"agent","|"}]}', "prompt",
     '"prompt":""}'),
    ("field after a value", T + '{"id":"o","type":"output","deliver":"notification"|}]}',
     "after", '"deliver":"notification","after":["start"]}'),
    ("new node after a comma", T + " |]}", "agent node",
     '{"id":"agent1","type":"agent","after":["start"],"prompt":""}]}'),
    ("after id", T + A + '{"id":"b","type":"agent","prompt":"p","after":["|"]}]}', "a",
     '"after":["a"]}'),
    ("condition reads its parent", T + A + '{"id":"c","type":"condition","after":["a"],'
     '"expression":"out.|"}]}', "a", '"out.a."'),
    ("a typed number after >=", T + A + '{"id":"c","type":"condition","after":["a"],'
     '"expression":"out.a.score >= 7|"}]}', "7", '"out.a.score >= 7"'),
    ("top-level key", '{|}', "name", '{"name":""}'),
]


def accept(text: str, item) -> str:
    """What a client that keeps the text after the cursor makes of `item`."""
    cursor = item.end if item.cursor is None else item.cursor
    edits = [(item.start, cursor, item.insert_text), *item.additional_edits]
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


@pytest.mark.parametrize(("source", "first", "around"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_first_item_and_every_item_leave_valid_json(source, first, around):
    offset = source.index("|")
    text = source[:offset] + source[offset + 1:]
    items = sorted(complete(parse(text), offset, snippets=False),
                   key=lambda i: (i.sort_text or "", i.label))
    assert items and items[0].label == first, [i.label for i in items]
    assert around in accept(text, items[0])
    for item in items:
        if item.reuses_quote and item.insert_text == item.label and item.kind == "field":
            continue  # a number or list cannot end before a kept quote: the key alone
        json.loads(accept(text, item))
        assert not any(c.isspace() for c in item.insert_text), item.insert_text
        for prose in ("Describe the task", "default", "Approve?", "out.node.key"):
            assert prose not in item.insert_text


@pytest.mark.parametrize(("source", "first"), [c[1:3] for c in CASES], ids=[c[0] for c in CASES])
def test_the_first_item_is_preselected(source, first):
    offset = source.index("|")
    text = source[:offset] + source[offset + 1:]
    items = complete(parse(text), offset, snippets=True)
    assert [i.label for i in items if i.preselect] == [first]


@pytest.mark.parametrize(("past_cursor", "expected"), [
    (True, '{"id":"o","type":"agent","retries":0}'),  # eglot, VS Code: the quote replaced
    (False, '{"id":"o","type":"agent","retries"}'),  # Neovim keeps it: the key alone
])
def test_a_number_field_in_an_auto_closed_string(past_cursor, expected):
    source = T + '{"id":"o","type":"agent","ret|"}]}'
    offset = source.index("|")
    text = source[:offset] + source[offset + 1:]
    (item,) = [i for i in complete(parse(text), offset, snippets=False, past_cursor=past_cursor)
               if i.label == "retries"]
    assert expected in accept(text, item)
