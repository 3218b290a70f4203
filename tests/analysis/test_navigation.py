"""Occurrences, rename, symbols and hints on the text (no server)."""

from __future__ import annotations

import pytest

from hwf_lsp.analysis.hints import hints
from hwf_lsp.analysis.navigation import (
    AFTER,
    CONDITION,
    DEFINITION,
    RenameError,
    occurrences,
    prepare_rename,
    references,
    rename,
)
from hwf_lsp.analysis.newest_run import RunInfo
from hwf_lsp.analysis.symbols import document_symbols, matches_query
from hwf_lsp.jsontext.jsontree import parse

TEXT = ('{"name": "d", "nodes": [{"id": "t", "type": "trigger"}, '
        '{"id": "a", "type": "agent", "prompt": "a a a", "after": ["t"]}, '
        '{"id": "c", "type": "condition", "expression": "out.a.x == \\"a\\"", "after": ["a"]}, '
        '{"id": "esc\\u0061", "type": "note", "text": "a"}]}')


def test_occurrences_roles_and_spans():
    doc = parse(TEXT)
    found = [(o.node_id, o.role, TEXT[o.start:o.end]) for o in occurrences(doc)]
    assert found == [("t", DEFINITION, "t"), ("a", DEFINITION, "a"), ("t", AFTER, "t"),
                     ("c", DEFINITION, "c"), ("a", CONDITION, "a"), ("a", AFTER, "a")]


def test_rename_touches_only_the_id():
    doc = parse(TEXT)
    offset = TEXT.index('"after": ["a"]') + 11
    edits = rename(doc, offset, "agent_1")
    out = TEXT
    for start, end, new in sorted(edits, reverse=True):
        out = out[:start] + new + out[end:]
    assert out == TEXT.replace('"id": "a"', '"id": "agent_1"').replace(
        "out.a.", "out.agent_1.").replace('["a"]', '["agent_1"]')
    assert len(references(doc, offset)) == 3
    assert len(references(doc, offset, include_declaration=False)) == 2


@pytest.mark.parametrize("new", ["t", "two words", "a.b", "", "ü"])
def test_rename_refusals(new):
    doc = parse(TEXT)
    with pytest.raises(RenameError):
        rename(doc, TEXT.index('"id": "a"') + 7, new)


def test_prepare_rename_only_on_ids():
    doc = parse(TEXT)
    assert prepare_rename(doc, TEXT.index("prompt")) is None
    assert prepare_rename(doc, TEXT.index('"a a a"') + 1) is None
    assert prepare_rename(doc, TEXT.index('"x ==') if '"x ==' in TEXT else 0) is None
    assert prepare_rename(doc, TEXT.index('"id": "c"') + 7).node_id == "c"


def test_symbols_in_plan_order_and_hints():
    text = ('{"name": "d", "nodes": [{"id": "b", "type": "agent", "prompt": "p", '
            '"after": ["a"]}, {"id": "n", "type": "note"}, {"id": "a", "type": "agent", '
            '"prompt": "p", "after": ["t"]}, {"id": "t", "type": "trigger"}]}')
    doc = parse(text)
    assert [s.name for s in document_symbols(doc)] == ["t", "a", "b", "n"]
    run = RunInfo.from_state({"run_id": "r1", "name": "d", "status": "running",
                              "outputs": {"a": 1}, "skipped": [], "pending": None}, "/x")
    labels = [(text[h.offset - 3:h.offset], h.label) for h in hints(doc, run)]
    assert labels == [('"b"', "#2"), ('"a"', "#1"), ('"a"', "✓ done")]


def test_symbols_of_a_cyclic_design_still_list_every_node():
    text = ('{"nodes": [{"id": "a", "type": "agent", "after": ["b"]}, '
            '{"id": "b", "type": "agent", "after": ["a"]}]}')
    assert sorted(s.name for s in document_symbols(parse(text))) == ["a", "b"]


@pytest.mark.parametrize(("name", "query", "hit"), [
    ("review", "rv", True), ("review", "REV", True), ("review", "x", False), ("a", "", True)])
def test_matches_query(name, query, hit):
    assert matches_query(name, query) is hit
