"""The check pipeline: every rule class lands on the most precise range.

Each case is a design with «…» around the expected range and the rule expected
there.  The markers are removed before checking.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hwf_lsp.analysis.findings import check_document, check_text, finding_to_contract
from hwf_lsp.jsontext.jsontree import parse
from hwf_lsp.jsontext.positions import LineIndex

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

TRIGGER = '{"id": "t", "type": "trigger"}'
AGENT = '{"id": "a", "type": "agent", "prompt": "p", "after": ["t"]}'


def design(*nodes: str, extra: str = "") -> str:
    """A design text around node fragments (one per line, so lines are easy to follow)."""
    body = ",\n    ".join(nodes)
    return '{\n  "name": "d",' + extra + '\n  "nodes": [\n    ' + body + "\n  ]\n}"


def unmark(marked: str) -> tuple[str, int, int]:
    start = marked.index("«")
    end = marked.index("»") - 1
    return marked.replace("«", "").replace("»", ""), start, end


# (id, marked design, rule, run_outputs)
CASES = [
    ("missing-payload-on-id", design(TRIGGER, '{"id": «"a"», "type": "agent", "after": ["t"]}'),
     "required-payload", None),
    ("no-id-on-brace", design(TRIGGER, '«{»"type": "agent", "prompt": "p"}'), "identity", None),
    ("empty-id", design(TRIGGER, '{"id": «""», "type": "agent", "prompt": "p"}'),
     "identity", None),
    ("missing-type-on-id", design(TRIGGER, '{"id": «"a"», "prompt": "p"}'), "known-kind", None),
    ("unknown-kind", design(TRIGGER, '{"id": "a", "type": «"agnet"»}'), "known-kind", None),
    ("second-trigger", design(TRIGGER, '{"id": "u", "type": «"trigger"»}'),
     "one-trigger", None),
    ("no-trigger-on-nodes-key", design(AGENT).replace('"nodes"', '«"nodes"»'),
     "one-trigger", None),
    ("after-element", design(TRIGGER, '{"id": "a", "type": "agent", "prompt": "p", '
                                      '"after": ["t", «"zz"»]}'), "edges", None),
    ("after-not-a-list", design(TRIGGER, '{"id": "a", "type": "agent", "prompt": "p", '
                                         '"after": «"t"»}'), "edges", None),
    ("cycle-on-the-closing-entry", design(TRIGGER, '{"id": "a", "type": "agent", '
                                         '"prompt": "p", "after": ["t", «"b"»]}',
                                         '{"id": "b", "type": "agent", "prompt": "p", '
                                         '"after": ["a"]}'), "acyclic", None),
    ("cycle-closed-by-a-same-id-node", design(TRIGGER, '{"id": "a", "type": "agent", '
                                             '"prompt": "p", "after": «["t"]»}',
                                             '{"id": "b", "type": "agent", "prompt": "p", '
                                             '"after": ["a"]}',
                                             '{"id": "a", "type": "note", "after": ["b"]}'),
     "acyclic", None),
    ("retries", design(TRIGGER, '{"id": "a", "type": "agent", "prompt": "p", "retries": «2.5»}'),
     "retries", None),
    ("timeout", design(TRIGGER, '{"id": "q", "type": "approval", "question": "?", '
                                '"timeout_minutes": «0»}'), "deadline", None),
    ("on-timeout", design(TRIGGER, '{"id": "q", "type": "approval", "question": "?", '
                                   '"on_timeout": «"later"»}'), "deadline", None),
    ("deliver", design(TRIGGER, '{"id": "o", "type": "output", "deliver": «"email"»}'),
     "delivery", None),
    ("target-without-colon", design(TRIGGER, '{"id": "o", "type": "output", '
                                             '"deliver": "channel", "target": «"reviews"»}'),
     "delivery", None),
    ("target-missing-on-id", design(TRIGGER, '{"id": «"o"», "type": "output", '
                                             '"deliver": "channel"}'), "delivery", None),
    ("note-color", design(TRIGGER, '{"id": "n", "type": "note", "color": «"pink"»}'),
     "note-color", None),
    ("title-type", design(TRIGGER, '{"id": "a", "type": "agent", "prompt": "p", "title": «5»}'),
     "field-type", None),
    ("options-element", design(TRIGGER, '{"id": "q", "type": "approval", "question": "?", '
                                        '"options": ["ok", «3»]}'), "field-type", None),
    ("missing-field-value", design(TRIGGER, '{"id": "a", "type": "agent", «"prompt"»: }'),
     "required-payload", None),
    # conditions: the offending token inside the string literal, escapes included
    ("condition-unknown-node", design(TRIGGER, AGENT, '{"id": "c", "type": "condition", '
                                      '"expression": "out.«nope».x == 1", "after": ["a"]}'),
     "condition", None),
    ("condition-after-escapes", design(TRIGGER, AGENT, '{"id": "c", "type": "condition", '
                                       '"expression": "\\u006fut.a.x == \\"a\\\\\\"b\\" «zz»", '
                                       '"after": ["a"]}'),
     "condition", None),
    ("condition-escaped-node", design(TRIGGER, AGENT, '{"id": "c", "type": "condition", '
                                      '"expression": "out.«\\u006eope».x == 1", '
                                      '"after": ["a"]}'),
     "condition", None),
    ("condition-operator", design(TRIGGER, AGENT, '{"id": "c", "type": "condition", '
                                  '"expression": "out.a.x «=»> 7", "after": ["a"]}'),
     "condition", None),
    # graph level
    ("no-nodes-key-on-brace", '«{»"name": "d"}', "graph-shape", None),
    ("nodes-not-a-list", '{"name": "d", «"nodes"»: {}}', "graph-shape", None),
    ("too-many-nodes", design(*[TRIGGER] * 51).replace('"nodes"', '«"nodes"»'),
     "graph-shape", None),
    ("root-not-an-object", "«[»1, 2]", "graph-shape", None),
    ("node-not-an-object", design(TRIGGER, "«42»"), "graph-shape", None),
    ("empty-text", "«»", "json-syntax", None),
    # syntax
    ("unterminated-string", '{"name": "d", "nodes": [«"abc»\n]}', "json-syntax", None),
    ("trailing-comma", '{"name": "d", "nodes": []«,»}', "json-syntax", None),
    ("trailing-comma-in-list", '{"name": "d", "nodes": [{"a": 1}, {}«,»]}', "json-syntax", None),
    ("missing-comma", '{"name": "d" «"nodes"»: []}', "json-syntax", None),
    # editor warnings
    ("unknown-field", design(TRIGGER, '{"id": "a", "type": "agent", "prompt": "p", '
                                      '«"promt"»: "x"}'), "unknown-field", None),
    ("unknown-field-unknown-kind", design(TRIGGER, '{"id": "a", "type": "x", «"zzz"»: 1}'),
     "unknown-field", None),
    ("not-upstream", design(TRIGGER, AGENT, '{"id": "c", "type": "condition", '
                            '"expression": "out.«a».x == 1", "after": ["t"]}'),
     "not-upstream", None),
    ("path-absent", design(TRIGGER, AGENT, '{"id": "c", "type": "condition", '
                           '"expression": "out.a.«x.y» == 1", "after": ["a"]}'),
     "path-absent", {"a": {"x": {"z": 1}}}),
    ("duplicate-key", design(TRIGGER, '{"id": "a", "type": "agent", «"prompt"»: "p", '
                             '"prompt": "q"}'), "duplicate-key", None),
    ("duplicate-key-at-root", design(TRIGGER, extra=' "name": "e",').replace('"name"', '«"name"»', 1),
     "duplicate-key", None),
    # positions: code points before the defect on the same line, CRLF line breaks
    ("emoji-and-cjk", design(TRIGGER, '{"id": "a", "type": "agent", "title": "😀日本😀", '
                                      '"prompt": "p", "retries": «9»}'), "retries", None),
    ("crlf", design(TRIGGER, '{"id": "a", "type": "agent", "prompt": "p",\r\n "retries": «9»}')
     .replace("\n", "\r\n").replace("\r\r\n", "\r\n"), "retries", None),
    ("lone-cr", design(TRIGGER, '{"id": "a", "type": "agent", "prompt": "😀",\r"retries": «9»}'),
     "retries", None),
]


def _expected_position(text: str, offset: int) -> dict[str, int]:
    """LSP position by plain counting, independent of LineIndex."""
    lines = re.split(r"\r\n|\r|\n", text[:offset])
    return {"line": len(lines) - 1, "character": len(lines[-1].encode("utf-16-le")) // 2}


@pytest.mark.parametrize(("marked", "rule", "run_outputs"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_finding_range(marked: str, rule: str, run_outputs: dict | None) -> None:
    text, start, end = unmark(marked)
    _doc, findings = check_text(text, run_outputs=run_outputs)
    spans = [(f.start, f.end) for f in findings if f.rule == rule]
    assert (start, end) in spans, (
        f"wanted {rule} at {text[start:end]!r}; got "
        + repr([(f.rule, text[f.start:f.end]) for f in findings])
    )
    finding = next(f for f in findings if f.rule == rule and (f.start, f.end) == (start, end))
    contract = finding_to_contract(finding, LineIndex(text))
    assert contract["range"] == {"start": _expected_position(text, start),
                                 "end": _expected_position(text, end)}
    json.dumps(contract)  # plain JSON


def test_utf16_character_counts_emoji_twice() -> None:
    text, start, _ = unmark(CASES[[c[0] for c in CASES].index("emoji-and-cjk")][1])
    _, findings = check_text(text)
    finding = next(f for f in findings if f.rule == "retries")
    contract = finding_to_contract(finding, LineIndex(text))
    line = text[: start].split("\n")[-1]
    code_points = len(line)
    assert contract["range"]["start"]["character"] == code_points + 2  # two emoji, +1 each


def test_contract_entry_shape() -> None:
    text = design(TRIGGER, '{"id": "a", "type": "agent", "prompt": "p", "retries": 9}')
    _, findings = check_text(text)
    (finding,) = findings
    entry = finding_to_contract(finding, LineIndex(text))
    assert entry == {
        "node": "a", "field": "retries", "index": 1,
        "msg": finding.msg,
        "range": {"start": {"line": 4, "character": 59}, "end": {"line": 4, "character": 60}},
    }
    assert set(finding_to_contract(finding, LineIndex(text), with_rule=True)) == \
        {"node", "field", "index", "msg", "range", "rule", "severity"}
    graph_level = check_text('{"nodes": []}')[1][0]
    assert "index" not in finding_to_contract(graph_level, LineIndex('{"nodes": []}'))


def test_order_syntax_then_rulebook_then_warnings() -> None:
    text = design(TRIGGER, '{"id": "a", "type": "agent", "promt": "p", "retries": 9,}')
    _, findings = check_text(text)
    assert [(f.rule, f.severity) for f in findings] == [
        ("json-syntax", "error"),
        ("required-payload", "error"),
        ("retries", "error"),
        ("unknown-field", "warning"),
    ]


def test_a_valid_design_has_no_findings() -> None:
    for path in ("hello-world.hwf.json", "review-flow.hwf.json"):
        assert check_text((EXAMPLES / path).read_text(encoding="utf-8"))[1] == []


def test_broken_example_matches_its_expected_findings() -> None:
    text = (EXAMPLES / "broken.hwf.json").read_text(encoding="utf-8")
    expected = json.loads((EXAMPLES / "broken.expected.json").read_text(encoding="utf-8"))
    _, findings = check_text(text)
    got = [{"node": f.node, "field": f.field, "rule": f.rule, "severity": f.severity}
           for f in findings]
    key = lambda entry: json.dumps(entry, sort_keys=True)  # noqa: E731
    assert sorted(map(key, got)) == sorted(map(key, expected))


def test_every_prefix_of_every_example_checks() -> None:
    for path in sorted(EXAMPLES.glob("*.hwf.json")):
        text = path.read_text(encoding="utf-8")
        for end in range(0, len(text) + 1):
            doc, findings = check_text(text[:end])
            for finding in findings:
                assert 0 <= finding.start <= finding.end <= end
            assert check_document(doc) == findings  # the same document checks the same


def test_findings_of_a_valid_document_need_no_full_tree() -> None:
    """One defect deep in a large design builds only the path to it."""
    nodes = [TRIGGER] + [
        f'{{"id": "n{i}", "type": "agent", "prompt": "{"x" * 2000}", "after": ["t"]}}'
        for i in range(40)
    ]
    nodes[20] = nodes[20].replace('"after"', '"retries": 7, "after"')
    text = design(*nodes)
    doc = parse(text)
    findings = check_document(doc)
    assert [f.rule for f in findings] == ["retries"]
    built = doc.node_at_path(("nodes",)).items
    untouched = [item for i, item in enumerate(built) if i != 20]
    assert all(item._source is not None for item in untouched)
