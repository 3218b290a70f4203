"""analysis/design_test_text.py: the engine's test-file errors (JSON pointers) at their
spans, and the node markdown hover shows.  The end-to-end side (both clients, positions in
their units): tests/server/test_lsp_design_tests.py."""

from __future__ import annotations

import pytest
from support.design_tests import branching_design

from hwf_lsp.analysis.design_test_text import (
    error_span,
    findings_of_test_file,
    node_markdown,
    nodes_of,
    pointer_parts,
)
from hwf_lsp.jsontext.jsontree import parse
from hwf_lsp.rules.design_test_check import TestFileError, pointer

TEXT = ('{"design": "flow.hwf.json", "cases": [\n'
        '  {"name": "a/b~c", "agents": {"wrok": {"output": "x"}},\n'
        '   "answers": {"ok": "maybe"}, "failing_deliveries": ["work"],\n'
        '   "expect": {}}\n'
        ']}')

# (id, pointer, at_key, the text the span covers)
SPANS = [
    ("key", "/cases/0/agents/wrok", True, '"wrok"'),
    ("scalar-value", "/cases/0/answers/ok", False, '"maybe"'),
    ("array-item", "/cases/0/failing_deliveries/0", False, '"work"'),
    ("object-value-marks-its-key", "/cases/0/expect", False, '"expect"'),
    ("array-item-object-marks-its-bracket", "/cases/0", False, "{"),
    ("root-marks-its-bracket", "", False, "{"),
    ("past-the-text-marks-the-deepest", "/cases/0/expect/status", False, '"expect"'),
    ("escaped-key", pointer("cases", 0, "name"), False, '"a/b~c"'),
]


@pytest.mark.parametrize(("name", "at", "at_key", "covered"), SPANS, ids=[s[0] for s in SPANS])
def test_an_error_marks_its_key_or_value(name, at, at_key, covered):
    doc = parse(TEXT)
    start, end = error_span(doc, TestFileError(at, None, None, "m", at_key))
    assert TEXT[start:end] == covered


def test_pointer_parts_unescape_rfc6901():
    assert pointer_parts(pointer("a/b", "c~d", 0)) == ["a/b", "c~d", "0"]
    assert pointer_parts("") == []


def test_findings_name_the_case_and_sort_by_place():
    doc = parse(TEXT)
    errors = [TestFileError("/cases/0/answers/ok", "a/b~c", "answers", "not an option"),
              TestFileError("/cases/0/agents/wrok", "a/b~c", "agents", "unknown node", True)]
    findings = findings_of_test_file(doc, errors)
    assert [TEXT[f.start:f.end] for f in findings] == ['"wrok"', '"maybe"']
    assert findings[0].msg == "case 'a/b~c': unknown node"
    assert {f.rule for f in findings} == {"design-test"}


def test_syntax_errors_come_first():
    doc = parse(TEXT.replace('"maybe"}', '"maybe"'))
    findings = findings_of_test_file(doc, [])
    assert findings and all(f.rule == "json-syntax" for f in findings)


def test_node_markdown_shows_kind_title_and_main_field():
    nodes = nodes_of(branching_design())
    text = node_markdown("high", {**nodes["high"], "title": "Good enough?"})
    assert text.startswith("**high** · condition — Good enough?")
    assert "out.work.score >= 5" in text
    assert "options: `approve`, `reject`" in node_markdown("ok", nodes["ok"])


def test_a_long_main_field_is_cut():
    text = node_markdown("w", {"type": "agent", "prompt": "x" * 500})
    assert "x" * 199 + "…" in text and "x" * 200 not in text


@pytest.mark.parametrize("design", [None, [], {"nodes": "no"}, {"nodes": [1, {"id": 2}]}])
def test_nodes_of_whatever_the_file_held(design):
    assert nodes_of(design) == {}
