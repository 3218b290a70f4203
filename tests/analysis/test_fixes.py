"""Quick fixes: applying each one removes its finding and keeps the JSON valid."""

from __future__ import annotations

import pytest

from hwf_lsp.analysis.findings import check_text
from hwf_lsp.analysis.fixes import fixes_for

T = '{"id": "t", "type": "trigger"}'


def design(*nodes: str) -> str:
    return '{"name": "d", "nodes": [' + ", ".join(nodes) + "]}"


AGENT = '{"id": "a", "type": "agent", "prompt": "p", "after": ["t"]'
# (design, rule, fix title, text the fixed design contains)
CASES = [
    (design(T, '{"id": "a", "type": "agnet", "prompt": "p", "after": ["t"]}'), "known-kind",
     "Change type to 'agent'", '"type": "agent"'),
    (design(T, AGENT + "}", '{"id": "b", "type": "agent", "prompt": "p", "after": ["aa"]}'),
     "edges", "Change to 'a'", '"after": ["a"]'),
    (design(T, AGENT + "}", '{"id": "b", "type": "agent", "prompt": "p", '
            '"after": ["zzz", "t"]}'), "edges", "Remove 'zzz' from after", '"after": ["t"]'),
    (design(T, '{"id": "b", "type": "agent", "prompt": "p", "after": ["t", "b"]}'), "edges",
     "Remove 'b' from after", '"after": ["t"]'),
    (design(T, AGENT + ', "retries": -4}'), "retries", "Set retries to 0 (allowed 0–3)",
     '"retries": 0'),
    (design(T, AGENT + ', "retries": 2.7}'), "retries", "Set retries to 2 (allowed 0–3)",
     '"retries": 2'),
    (design(T, AGENT + ', "timeout_minutes": 1e9}'), "deadline",
     "Set timeout_minutes to 4320 (allowed 1–4320)", '"timeout_minutes": 4320'),
    (design(T, '{"id": "q", "type": "approval", "question": "q", "after": ["t"], '
            '"on_timeout": "rejct"}'), "deadline", "Change on_timeout to 'reject'",
     '"on_timeout": "reject"'),
    (design(T, '{"id": "o", "type": "output", "after": ["t"], "deliver": "chanel", '
            '"target": "a:b"}'), "delivery", "Change deliver to 'channel'",
     '"deliver": "channel"'),
    (design(T, '{"id": "n", "type": "note", "color": "gren"}'), "note-color",
     "Change color to 'green'", '"color": "green"'),
    (design('{"id": "a", "type": "agent", "prompt": "p"}'), "one-trigger",
     "Add a trigger node", '[{"id": "trigger", "type": "trigger"}, {"id": "a"'),
    (design(T, AGENT + "}", '{"id": "c", "type": "condition", '
            '"expression": "out.a.ok == true"}'), "not-upstream", "Add 'a' to after",
     '"after": ["a"]'),
    (design(T, AGENT + "}", '{"id": "c", "type": "condition", '
            '"expression": "out.a.ok == true", "after": []}'), "not-upstream",
     "Add 'a' to after", '"after": ["a"]'),
]


SYNTAX = [
    ('{"name": "d", "nodes": [' + T + ' {"id": "a", "type": "note"}]}', "Insert the missing ','",
     T + ', {"id": "a"'),
    ('{"name": "d", "nodes": [{"id": "t"\n "type": "trigger"}]}', "Insert the missing ','",
     '"t",\n "type"'),
    ('{"name": "d", "nodes": [{"id": "t", "type": "trigger",}]}', "Remove the trailing ','",
     '"trigger"}'),
    # trailing commas in arrays (nodes, after) and in the root object
    ('{"name": "d", "nodes": [' + T + ',]}', "Remove the trailing ','", T + "]}"),
    ('{"name": "d", "nodes": [' + T + ',\n  ]}', "Remove the trailing ','", T + "\n  ]}"),
    ('{"name": "d", "nodes": [' + T + ', ' + AGENT[:-1] + ', "t",]}]}',
     "Remove the trailing ','", '"after": ["t", "t"]}'),
    ('{"name": "d", "nodes": [' + T + '],}', "Remove the trailing ','", T + "]}"),
]
CASES += [(text, "json-syntax", title, expected) for text, title, expected in SYNTAX]


@pytest.mark.parametrize(("text", "rule", "title", "expected"), CASES)
def test_fix(text, rule, title, expected):
    doc, findings = check_text(text)
    target = [f for f in findings if f.rule == rule]
    assert target, findings
    fixes = {fix.title: fix for fix in fixes_for(doc, target)}
    assert title in fixes, list(fixes)
    fixed = text
    for start, end, new in sorted(fixes[title].edits, reverse=True):
        fixed = fixed[:start] + new + fixed[end:]
    assert expected in fixed
    _, after = check_text(fixed)
    rules = [f.rule for f in after]
    assert "json-syntax" not in rules
    assert rules.count(rule) < len(target), after


def test_a_misplaced_trailing_comma_finding_gets_no_fix():
    """Only a comma that really precedes a closer is removed."""
    from hwf_lsp.analysis.locate import Finding

    text = '{"name": "d", "nodes": [' + T + ',]}'
    doc, _ = check_text(text)
    wrong = Finding("json-syntax", "error", "Trailing comma", 12, 13)
    assert fixes_for(doc, [wrong]) == []


def test_no_rename_onto_a_key_that_exists():
    text = design(T, AGENT + ', "promt": "x"}')
    doc, findings = check_text(text)
    assert [f.rule for f in findings] == ["unknown-field"]
    assert [fix.title for fix in fixes_for(doc, findings)] == ["Remove the field 'promt'"]
