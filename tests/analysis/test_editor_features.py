"""Formatting, folding, selection ranges, condition tokens, the call graph, related
places of findings and the comparison hover: the analysis side, table-driven."""

from __future__ import annotations

import json

import pytest

from hwf_lsp.analysis.call_graph import downstream, graph_node_at, upstream
from hwf_lsp.analysis.condition_tokens import TOKEN_TYPES, condition_tokens
from hwf_lsp.analysis.findings import check_text
from hwf_lsp.analysis.hover_text import hover
from hwf_lsp.analysis.newest_run import RunInfo
from hwf_lsp.jsontext.folding import folds
from hwf_lsp.jsontext.jsontree import parse
from hwf_lsp.jsontext.layout import Layout, closed_container, format_edits
from hwf_lsp.jsontext.selection import selection_spans

DEFAULT = Layout()


def formatted(text: str, layout: Layout = DEFAULT, start: int = 0, end: int | None = None
              ) -> str:
    for s, e, new in sorted(format_edits(parse(text), layout, start, end), reverse=True):
        text = text[:s] + new + text[e:]
    return text


DESIGNS = [
    '{"name": "d", "nodes": [{"id": "t", "type": "trigger"}, {"id": "a", "type": "agent", '
    '"prompt": "p 😀", "after": ["t"], "retries": 1.50e0}]}',
    '{"a": [], "b": {}, "c": [1, [2, {}]], "d": {"e": null}}',
    '  [1,2 ,\n\n 3]\n\n',
    '{"x": "\\u00e9\\n", "x": 2}',
]


@pytest.mark.parametrize("text", DESIGNS)
def test_formatting_is_json_dumps_indent_2_keeping_every_token(text):
    out = formatted(text)
    value = json.loads(text, object_pairs_hook=list)
    assert json.loads(out, object_pairs_hook=list) == value  # order and duplicates kept
    if "1.50e0" not in text and "\\u" not in text and "😀" not in text:
        assert out.rstrip("\n") == json.dumps(json.loads(text), indent=2)
    assert [t for t in out.split() if t] != []
    assert "".join(out.split()) == "".join(text.split())  # same tokens
    assert format_edits(parse(out)) == []  # idempotent


@pytest.mark.parametrize(("layout", "expected"), [
    (Layout(4), '{\n    "a": [\n        1\n    ]\n}'),
    (Layout(2, insert_spaces=False), '{\n\t"a": [\n\t\t1\n\t]\n}'),
    (Layout(2, insert_final_newline=True), '{\n  "a": [\n    1\n  ]\n}\n'),
])
def test_formatting_follows_the_client_options(layout, expected):
    assert formatted('{"a":[1]}', layout) == expected


def test_formatting_edits_are_minimal_and_keep_crlf():
    text = '{\r\n  "a": 1,\r\n  "b":2\r\n}'
    edits = format_edits(parse(text))
    assert edits == [(text.index(":2") + 1, text.index(":2") + 1, " ")]
    assert formatted('{"a": 1,\r\n"b": 2}') == '{\r\n  "a": 1,\r\n  "b": 2\r\n}'


def test_broken_text_is_never_formatted():
    assert format_edits(parse('{"a": "unclosed, "b": 1}')) == []


def test_range_and_on_type_formatting_touch_only_their_container():
    text = '{"a": {"b":1}, "c":2}'
    inner = text.index("{", 1)
    span = closed_container(parse(text), text.index("}") + 1)
    assert span == (inner, text.index("}") + 1)
    out = formatted(text, Layout(), *span)
    assert out == '{"a": {\n    "b": 1\n  }, "c":2}'
    assert closed_container(parse(text), 3) is None


def test_folds_cover_every_container_even_on_broken_text():
    text = '{"nodes": [\n  {"id": "t",\n   "type": "trigger"},\n  {"id": "a"\n]}'
    pairs = folds(parse(text))
    assert (text.index("["), text.index("]")) in pairs
    assert (text.index('{"id": "t"'), text.index("},")) in pairs


def test_selection_grows_from_the_string_to_the_root():
    text = '{"nodes": [{"id": "t", "type": "trigger"}]}'
    offset = text.index("trigger") + 2
    spans = selection_spans(parse(text), offset)
    value = text.index('"trigger"')
    assert spans[:3] == [(value + 1, value + 8), (value, value + 9),
                         (text.index('"type"'), value + 9)]
    assert spans[-1] == (0, len(text))
    for inner, outer in zip(spans, spans[1:], strict=False):
        assert outer[0] <= inner[0] and inner[1] <= outer[1] and inner != outer


EXPR = '{"nodes": [{"id": "c", "type": "condition", "expression": ' \
       '"out.rev😀.items.0 >= \\"x\\""}]}'


def test_condition_tokens():
    text = EXPR.replace("rev😀", "review")
    tokens = [(text[s:e], TOKEN_TYPES[k]) for s, e, k in condition_tokens(parse(text))]
    assert tokens == [("out", "keyword"), ("review", "variable"), ("items", "property"),
                      ("0", "property"), (">=", "operator"), ('\\"x\\"', "string")]
    broken = text.replace(">=", "=>")
    assert [TOKEN_TYPES[k] for _s, _e, k in condition_tokens(parse(broken))] == [
        "keyword", "variable", "property", "property"]


GRAPH = '{"nodes": [{"id": "t", "type": "trigger"}, ' \
        '{"id": "a", "type": "agent", "prompt": "p", "after": ["t"]}, ' \
        '{"id": "b", "type": "agent", "prompt": "p", "after": ["a", "t"]}, ' \
        '{"id": "c", "type": "condition", "expression": "out.a.x == 1", "after": ["b"]}]}'


def test_call_graph_upstream_and_downstream_from_any_occurrence():
    doc = parse(GRAPH)
    for needle in ('"a", "type"', '["a", "t"]', "out.a"):
        offset = GRAPH.index(needle) + (5 if needle == "out.a" else 2)
        assert graph_node_at(doc, offset).id == "a", needle
    assert [e.node.id for e in upstream(doc, "a")] == ["t"]
    assert [e.node.id for e in downstream(doc, "a")] == ["b"]
    edge = downstream(doc, "a")[0]
    assert [GRAPH[s:e] for s, e in edge.spans] == ['a']
    assert sorted(e.node.id for e in downstream(doc, "t")) == ["a", "b"]


def related(text: str, rule: str) -> list[tuple[str, str]]:
    _, findings = check_text(text)
    (finding,) = [f for f in findings if f.rule == rule]
    return [(text[r.start:r.end], r.msg) for r in finding.related]


T = '{"id": "t", "type": "trigger"}'


def test_related_places():
    dup = '{"nodes": [' + T + ', {"id": "a", "type": "note"}, {"id": "a", "type": "note"}]}'
    assert related(dup, "identity") == [('"a"', "first use of 'a'")]
    two = '{"nodes": [' + T + ', {"id": "u", "type": "trigger"}]}'
    assert related(two, "one-trigger") == [('"trigger"', "the design's trigger")]
    cycle = '{"nodes": [' + T + ', {"id": "a", "type": "agent", "prompt": "p", ' \
        '"after": ["t", "b"]}, {"id": "b", "type": "agent", "prompt": "p", "after": ["a"]}]}'
    edges = related(cycle, "acyclic")
    assert sorted(edges) == [('"a"', "'b' runs after 'a'"), ('"b"', "'a' runs after 'b'")]
    upstream_text = '{"nodes": [' + T + ', {"id": "a", "type": "agent", "prompt": "p"}, ' \
        '{"id": "c", "type": "condition", "expression": "out.a.x == 1", "after": ["t"]}]}'
    assert related(upstream_text, "not-upstream") == [('"a"', "'a', the node read")]
    keys = '{"nodes": [' + T + '], "name": "x", "name": "y"}'
    _, findings = check_text(keys)
    (dup_key,) = [f for f in findings if f.rule == "duplicate-key"]
    assert dup_key.unnecessary and keys[dup_key.related[0].start:] .startswith('"name": "y"')


def test_hover_on_operator_and_literal_shows_the_run():
    text = '{"name": "d", "nodes": [' + T + ', {"id": "a", "type": "agent", "prompt": "p", ' \
        '"after": ["t"]}, {"id": "c", "type": "condition", ' \
        '"expression": "out.a.score >= 3", "after": ["a"]}]}'
    run = RunInfo.from_state({"run_id": "abc123", "name": "d", "status": "completed",
                              "outputs": {"a": {"score": 2}}}, "/x/abc123.json")
    doc = parse(text)
    at_op = hover(doc, text.index(">=") + 1, run)
    assert "`2`" in at_op.markdown and "**false**" in at_op.markdown
    assert text[at_op.start:at_op.end] == ">="
    at_literal = hover(doc, text.index("3\"") , run)
    assert text[at_literal.start:at_literal.end] == "3"
    assert "no run" in hover(doc, text.index(">="), None).markdown


@pytest.mark.parametrize("node, shown", [
    ("a", ["Debug run (replay 0badc0de): 1 edit by the user.",
           '- `out.a.score` edited: `2` → `9`']),
    ("c", ["Debug run (replay 0badc0de): 1 edit by the user."]),
])
def test_hover_marks_a_debug_run_and_the_outputs_edited_in_it(node, shown):
    """A debug run is an ordinary run, marked: hover says so, and shows a step's edits."""
    text = '{"name": "d", "nodes": [' + T + ', {"id": "a", "type": "agent", "prompt": "p", ' \
        '"after": ["t"]}, {"id": "c", "type": "condition", ' \
        '"expression": "out.a.score >= 3", "after": ["a"]}]}'
    edit = {"node": "a", "path": ["score"], "old": 2, "new": 9, "at": "2026-12-04T20:00:00Z"}
    run = RunInfo.from_state({"run_id": "abc123", "name": "d", "status": "completed",
                              "outputs": {"a": {"score": 9}, "c": True},
                              "debug": {"replay": "0badc0de", "edits": [edit]}},
                             "/x/abc123.json")
    markdown = hover(parse(text), text.index(f'"id": "{node}"') + 8, run).markdown
    lines = markdown.splitlines()
    assert [line for line in lines if "ebug run" in line or "edited" in line] == shown
