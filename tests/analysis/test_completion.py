"""complete(): what is offered where, and what accepting it produces."""

from __future__ import annotations

import heapq
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hwf_lsp.analysis import completion_items as completion
from hwf_lsp.analysis.completion_items import complete
from hwf_lsp.analysis.findings import check_text
from hwf_lsp.analysis.newest_run import RunInfo
from hwf_lsp.jsontext.jsontree import parse

RUN = RunInfo.from_state({"run_id": "abc123", "name": "d", "status": "completed",
                          "outputs": {"a": {"verdict": "ok", "items": [{"n": 1}], "odd key": 1},
                                      "b": "plain"}}, "/runs/abc123.json")
HEAD = '{"name": "d", "nodes": [{"id": "t", "type": "trigger"}, '
A = '{"id": "a", "type": "agent", "prompt": "p", "after": ["t"]}, '
B = '{"id": "b", "type": "agent", "prompt": "p", "after": ["a"]}, '


def plain(snippet: str) -> str:
    text = re.sub(r"\$\{\d+\|([^,|]*)[^}]*\}", r"\1", snippet)
    text = re.sub(r"\$\{\d+:([^}]*)\}", r"\1", text)
    return re.sub(r"\$\d+", "", text).replace("\\\\", "\\")


def run_completion(source: str, snippets: bool = True):
    offset = source.index("|")
    text = source[:offset] + source[offset + 1:]
    return text, complete(parse(text), offset, run=RUN, snippets=snippets)


def accept(text: str, item) -> str:
    insert = plain(item.insert_text) if item.snippet else item.insert_text
    return text[: item.start] + insert + text[item.end:]


# (source with |, label to accept, expected text after accepting)
ACCEPT = [
    (HEAD + '{"id": "x", "type": "ap|"}]}', "approval",
     HEAD + '{"id": "x", "type": "approval"}]}'),
    (HEAD + '{"id": "x", "type": "ap|', "approval", HEAD + '{"id": "x", "type": "approval"'),
    (HEAD + '{"id": "x", "type": "ap|, "after": []}]}', "approval",
     HEAD + '{"id": "x", "type": "approval", "after": []}]}'),
    (HEAD + A + '{"id": "x", "type": "agent", "after": ["|"]}]}', "a",
     HEAD + A + '{"id": "x", "type": "agent", "after": ["a"]}]}'),
    (HEAD + A + '{"id": "x", "type": "condition", "after": ["a"], "expression": "out.a.|"}]}',
     "items", HEAD + A + '{"id": "x", "type": "condition", "after": ["a"], '
     '"expression": "out.a.items."}]}'),
    (HEAD + A + '{"id": "x", "type": "condition", "after": ["a"], '
     '"expression": "out.a.items.|"}]}', "0", HEAD + A + '{"id": "x", "type": "condition", '
     '"after": ["a"], "expression": "out.a.items.0."}]}'),
    (HEAD + A + '{"id": "x", "type": "condition", "after": ["a"], '
     '"expression": "out.a.verdict == |"}]}', '"ok"', HEAD + A + '{"id": "x", '
     '"type": "condition", "after": ["a"], "expression": "out.a.verdict == \\"ok\\""}]}'),
    (HEAD + A + '{"id": "x", "type": "condition", "after": ["a"], "expression": "out.ve|rdict"}]}',
     "a", HEAD + A + '{"id": "x", "type": "condition", "after": ["a"], '
     '"expression": "out.a."}]}'),
    (HEAD + '{"id": "x", "type": "agent", "|"}]}', "prompt",
     HEAD + '{"id": "x", "type": "agent", "prompt": ""}]}'),
    (HEAD + '{"id": "x", "type": "agent", "|": 1}]}', "retries",
     HEAD + '{"id": "x", "type": "agent", "retries": 1}]}'),
]


@pytest.mark.parametrize(("source", "label", "expected"), ACCEPT)
def test_accepting_an_item(source, label, expected):
    text, items = run_completion(source)
    item = next(i for i in items if i.label == label)
    assert accept(text, item) == expected


def test_after_excludes_self_notes_cycles_and_listed():
    source = HEAD + A + B + '{"id": "n", "type": "note"}, ' \
        '{"id": "c", "type": "agent", "prompt": "p", "after": ["t", "|"]}, ' \
        '{"id": "d", "type": "agent", "prompt": "p", "after": ["c"]}]}'
    _, items = run_completion(source)
    assert [i.label for i in items] == ["a", "b"]


def test_condition_nodes_upstream_first_and_no_descendants():
    source = HEAD + A + B + '{"id": "z", "type": "agent", "prompt": "p", "after": ["t"]}, ' \
        '{"id": "c", "type": "condition", "after": ["b"], "expression": "out.|"}, ' \
        '{"id": "d", "type": "agent", "prompt": "p", "after": ["c"]}]}'
    _, items = run_completion(source)
    ordered = sorted(items, key=lambda i: i.sort_text)
    assert [i.label for i in ordered] == ["b", "a", "z"]  # the parent, its parent, unrelated


def test_paths_skip_keys_a_condition_cannot_name_and_plain_outputs():
    source = HEAD + A + '{"id": "x", "type": "condition", "after": ["a"], ' \
        '"expression": "out.a.|"}]}'
    _, items = run_completion(source)
    assert sorted(i.label for i in items) == ["items", "verdict"]
    plain_output = source.replace("out.a.|", "out.b.|")
    assert run_completion(plain_output)[1] == []


def test_without_snippet_support_text_is_plain():
    _, items = run_completion(HEAD + '{"id": "x", "type": "agent", "|"}]}', snippets=False)
    assert items and not any(i.snippet or "${" in i.insert_text for i in items)


def test_new_node_snippets_are_valid_json_once_accepted():
    source = HEAD + A + "|]}"
    text, items = run_completion(source)
    assert len(items) == 5  # every kind but a second trigger
    for item in items:
        accepted = accept(text, item)
        doc, findings = check_text(accepted)
        assert not [f for f in findings if f.rule == "json-syntax"], accepted


@pytest.mark.parametrize("text", ["", "{", '{"nodes": [', '{"nodes": [{"type": "', "[" * 500,
                                  '{"nodes": [{"id": "a", "after": ["a", "a"]}]}'])
def test_every_offset_of_odd_documents(text):
    """Any offset of odd text gets items whose replaced span is inside the text, around
    the cursor, and whose labels are unique (no item offered twice)."""
    doc = parse(text)
    offered = 0
    for offset in range(len(text) + 1):
        items = complete(doc, offset, run=RUN)
        for item in items:
            assert 0 <= item.start <= offset <= item.end <= len(text), (offset, item)
            assert item.label and item.insert_text, item
        assert len({(i.label, i.kind) for i in items}) == len(items), items
        offered += len(items)
    if text.startswith('{"nodes": [{"type": "'):
        assert offered > 0  # a kind is being typed: kinds are offered


# --- the ids offered when a big design has too many: nearest the cursor ----------------


@given(st.lists(st.sampled_from(["trigger", "agent", "approval"]), max_size=260),
       st.sets(st.integers(0, 259)), st.integers(0, 270))
@settings(max_examples=200, deadline=None)
def test_the_walk_out_from_the_cursor_picks_what_ranking_every_id_picks(
        kinds: list[str], dropped: set[int], here: int) -> None:
    """Nothing typed: `_nearest_untyped` must choose exactly the ranking's first 100."""
    candidates = [(i, f"n{i}", kind) for i, kind in enumerate(kinds) if i not in dropped]
    ranked = heapq.nsmallest(completion.MAX_NODE_ITEMS, candidates,
                             key=completion._rank("", here))
    walked = completion._nearest_untyped(candidates, here)
    assert [c[0] for c in walked] == [c[0] for c in ranked]
