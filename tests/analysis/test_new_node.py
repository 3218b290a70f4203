"""A new node's id and values (analysis/new_node.py): one scheme, whichever way the node
is added (the canvas's palette through `design_edits.add_node`, or the text completion's
node template): `<kind><n>`, the first free from 1, and empty strings where the author's
own words go."""

from __future__ import annotations

import json

import pytest
from support.text_edits import apply

from hwf_lsp.analysis import design_edits
from hwf_lsp.analysis.completion_items import complete
from hwf_lsp.analysis.design import design_of
from hwf_lsp.analysis.new_node import new_node_id
from hwf_lsp.jsontext.jsontree import parse

# (ids in the design, kind, the new node's id)
IDS = [
    (["start"], "agent", "agent1"),
    (["start", "agent1"], "agent", "agent2"),
    (["start", "agent1", "agent3"], "agent", "agent2"),
    (["start", "agent"], "agent", "agent1"),
    (["start", "note1", "note2"], "note", "note3"),
    (["start"], "trigger", "trigger"),
    (["start", "trigger"], "trigger", "trigger1"),
]


@pytest.mark.parametrize(("ids", "kind", "expected"), IDS)
def test_a_new_node_is_named_by_the_first_free_kind_n(ids, kind, expected):
    text = json.dumps({"name": "d", "nodes": [{"id": i, "type": "note"} for i in ids]})
    assert new_node_id(design_of(parse(text)), kind) == expected


T = '{"name":"d","nodes":[{"id":"start","type":"trigger"},'
BEFORE = ('{"id":"agent1","type":"agent","prompt":"p","after":["start"]},'
          '{"id":"a","type":"agent","prompt":"p","after":["agent1"]},')


def test_the_palette_and_the_completion_write_the_same_new_node():
    """Each kind the completion offers after `a`, added from the palette after `a`: the
    same object (id, type, after and values), no placeholder prose in it."""
    text = T + BEFORE + "]}"
    offset = len(T + BEFORE)
    offered = [item for item in complete(parse(text), offset, snippets=False)
               if item.label.endswith(" node")]
    assert len(offered) >= 4, [item.label for item in offered]
    for item in offered:
        kind = item.label.removesuffix(" node")
        from_completion = json.loads(item.insert_text)
        valid = T + BEFORE.removesuffix(",") + "]}"
        added = design_edits.add_node(parse(valid), kind, "a")
        after = apply(valid, added.edits)
        from_palette = next(n for n in json.loads(after)["nodes"] if n["id"] == added.id)
        assert from_palette == from_completion, kind
        assert from_palette["id"] == (f"{kind}2" if kind == "agent" else f"{kind}1")
        words = {k: v for k, v in from_palette.items() if k in ("prompt", "question", "text")}
        assert set(words.values()) <= {""}, from_palette
