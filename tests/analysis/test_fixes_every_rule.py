"""Every rule has a quick fix, and applying it removes that finding and adds no new error
(but a prompt, question or expression left empty for its author to write).

One row per case: the design, the rule, and the title of the fix to apply.  A rule code of
the vocabulary with no row fails `test_every_rule_has_a_case`.
"""

from __future__ import annotations

import json

import pytest

from hwf_lsp.analysis.findings import check_text
from hwf_lsp.analysis.fixes import fixes_for
from hwf_lsp.rules.vocabulary import EDITOR_RULES, RULES

T = '{"id": "t", "type": "trigger"}'
A = '{"id": "a", "type": "agent", "prompt": "p", "after": ["t"]}'
RUN = {"a": {"verdict": "ok", "score": 3, "items": [{"name": "x"}]}}


def design(*nodes: str) -> str:
    return '{"name": "d", "nodes": [' + ", ".join(nodes) + "]}"


def cond(expression: str, after: str = '["a"]') -> str:
    return '{"id": "c", "type": "condition", "expression": ' + json.dumps(expression) + \
        f', "after": {after}' + "}"


# (case, design, rule, title of the fix applied)
CASES = [
    ("empty-nodes", '{"name": "d", "nodes": []}', "graph-shape", "Add a trigger node"),
    ("no-nodes", '{"name": "d"}', "graph-shape", "Add a trigger node"),
    ("node-not-object", design(T, "3"), "graph-shape",
     "Remove this entry (a node is an object)"),
    ("duplicate-id", design(T, A, A.replace('"prompt": "p"', '"prompt": "q"')), "identity",
     "Change id to 'a-2'"),
    ("empty-id", design(T, '{"id": "", "type": "note"}'), "identity", "Change id to 'note'"),
    ("missing-id", design(T, '{"type": "note"}'), "identity", "Add id 'note'"),
    ("no-trigger", design('{"id": "a", "type": "agent", "prompt": "p"}'), "one-trigger",
     "Add a trigger node"),
    ("second-trigger-agent", design(T, '{"id": "t2", "type": "trigger"}'), "one-trigger",
     "Make it an agent"),
    ("second-trigger-delete", design(T, '{"id": "t2", "type": "trigger"}'), "one-trigger",
     "Delete this trigger"),
    ("kind-typo", design(T, '{"id": "a", "type": "agnet", "after": ["t"]}'), "known-kind",
     "Change type to 'agent'"),
    ("kind-missing", design(T, '{"id": "a", "question": "ok?", "after": ["t"]}'), "known-kind",
     "Add type 'approval'"),
    ("payload", design(T, '{"id": "a", "type": "agent", "after": ["t"]}'), "required-payload",
     "Add an empty prompt to write"),
    ("edge-unknown", design(T, A, '{"id": "b", "type": "agent", "prompt": "p", '
                            '"after": ["aa"]}'), "edges", "Change to 'a'"),
    ("edge-self", design(T, '{"id": "b", "type": "agent", "prompt": "p", '
                         '"after": ["t", "b"]}'), "edges", "Remove 'b' from after"),
    ("design-name", '{"name": "Bad Name!", "nodes": [' + T + ']}', "design-name",
     "Change name to 'bad-name-'"),
    ("design-name-reserved", '{"name": "CON", "nodes": [' + T + ']}', "design-name",
     "Change name to 'con-design'"),
    ("no-reject-options", design(T, '{"id": "ap", "type": "approval", "question": "q", '
                                 '"options": ["yes", "no"], "after": ["t"]}'),
     "no-reject", "Add 'reject' to options"),
    ("cycle", design(T, '{"id": "a", "type": "agent", "prompt": "p", "after": ["t", "b"]}',
                     '{"id": "b", "type": "agent", "prompt": "p", "after": ["a"]}'),
     "acyclic", None),
    ("retries", design(T, A[:-1] + ', "retries": 7}'), "retries",
     "Set retries to 3 (allowed 0–3)"),
    ("timeout", design(T, A[:-1] + ', "timeout_minutes": 0}'), "deadline",
     "Set timeout_minutes to 1 (allowed 1–4320)"),
    ("on-timeout", design(T, '{"id": "q", "type": "approval", "question": "q", '
                          '"on_timeout": "rejct", "after": ["t"]}'), "deadline",
     "Change on_timeout to 'reject'"),
    ("deliver-email-notify", design(T, A, '{"id": "o", "type": "output", "deliver": "email", '
                                    '"after": ["a"]}'), "delivery",
     "Change deliver to 'notification'"),
    ("deliver-email-channel", design(T, A, '{"id": "o", "type": "output", '
                                     '"deliver": "email", "after": ["a"]}'), "delivery",
     "Change deliver to 'channel' with a target"),
    ("channel-no-target", design(T, A, '{"id": "o", "type": "output", "deliver": "channel", '
                                 '"after": ["a"]}'), "delivery", "Set a channel target"),
    ("target-no-colon", design(T, A, '{"id": "o", "type": "output", "deliver": "channel", '
                               '"target": "reviews", "after": ["a"]}'), "delivery",
     "Set a channel target"),
    ("op-eq", design(T, A, cond("out.a.score = 3")), "condition", "Change '=' to '=='"),
    ("op-ge", design(T, A, cond("out.a.score => 3")), "condition", "Change '=>' to '>='"),
    ("op-le", design(T, A, cond("out.a.score =< 3")), "condition", "Change '=<' to '<='"),
    ("cond-unknown-node", design(T, A, cond("out.aa.score == 3")), "condition",
     "Change to 'a'"),
    ("note-color", design(T, '{"id": "n", "type": "note", "color": "gren"}'), "note-color",
     "Change color to 'green'"),
    ("field-type", design(T, A[:-1] + ', "title": 5}'), "field-type",
     'Make title the text "5"'),
    ("option-repeated", design(T, '{"id": "q", "type": "approval", "question": "q", '
                               '"options": ["yes", "yes"], "after": ["t"]}'), "field-type",
     "Remove this entry"),
    ("missing-comma", '{"name": "d", "nodes": [' + T + ' ' + A + ']}', "json-syntax",
     "Insert the missing ','"),
    ("missing-colon", '{"name": "d", "nodes": [{"id": "t", "type" "trigger"}]}',
     "json-syntax", "Insert the missing ':'"),
    ("trailing-comma", '{"name": "d", "nodes": [' + T + ',]}', "json-syntax",
     "Remove the trailing ','"),
    ("unknown-field-rename", design(T, A[:-1] + ', "retrys": 1}'), "unknown-field",
     "Rename to 'retries'"),
    ("unknown-field-remove", design(T, A[:-1] + ', "colour": 1}'), "unknown-field",
     "Remove the field 'colour'"),
    ("not-upstream", design(T, A, cond("out.a.score >= 3", '["t"]')), "not-upstream",
     "Add 'a' to after"),
    ("path-absent", design(T, A, cond("out.a.verdic == \"ok\"")), "path-absent",
     "Change the path to 'verdict'"),
    ("duplicate-key", design(T, '{"id": "a", "type": "agent", "prompt": "p", "prompt": "q", '
                             '"after": ["t"]}'), "duplicate-key", "Delete the ignored 'prompt'"),
]


def errors(findings) -> list[tuple[str, str]]:
    return sorted((f.rule, f.msg) for f in findings if f.severity == "error"
                  and not authors_to_write(f))


def authors_to_write(finding) -> bool:
    """A prompt, question or expression a fix left empty: only its author can write it
    (issue 43), so it stays a finding."""
    return finding.rule == "required-payload" and " is empty" in finding.msg


def apply(text: str, edits) -> str:
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


@pytest.mark.parametrize(("case", "text", "rule", "title"), CASES, ids=[c[0] for c in CASES])
def test_fix_removes_its_finding_and_adds_no_error(case, text, rule, title):
    doc, findings = check_text(text, run_outputs=RUN)
    target = [f for f in findings if f.rule == rule]
    assert len(target) == 1, findings
    fixes = fixes_for(doc, target, RUN)
    chosen = [f for f in fixes if title is None or f.title == title]
    assert chosen, [f.title for f in fixes]
    fixed = apply(text, chosen[0].edits)
    _, after = check_text(fixed, run_outputs=RUN)
    assert not [f for f in after if f.rule == rule and not authors_to_write(f)], (fixed, after)
    before_errors = set(errors(findings)) - set(errors(target))
    assert set(errors(after)) <= before_errors, (fixed, after)
    if rule != "json-syntax":
        json.loads(fixed)


def test_every_rule_has_a_case():
    assert {c[2] for c in CASES} == set(RULES) | set(EDITOR_RULES)


def test_email_delivery_no_longer_offers_a_bare_channel():
    text = design(T, A, '{"id": "o", "type": "output", "deliver": "email", "after": ["a"]}')
    doc, findings = check_text(text)
    titles = [f.title for f in fixes_for(doc, [f for f in findings if f.rule == "delivery"])]
    assert "Change deliver to 'channel'" not in titles
    assert set(titles) == {"Change deliver to 'notification'",
                           "Change deliver to 'channel' with a target"}


def test_no_comma_guesses_after_an_unclosed_string():
    text = '{"name": "d", "nodes": [\n  {"id": "t", "type": "trigger"},\n' \
           '  {"id": "a", "type": "agent", "prompt": "unclosed},\n' \
           '  {"id": "b", "type": "agent", "prompt": "p", "after": ["a"]}\n]}'
    doc, findings = check_text(text)
    syntax = [f for f in findings if f.rule == "json-syntax"]
    assert syntax
    assert [f.title for f in fixes_for(doc, syntax)] == []


def test_not_upstream_fix_never_closes_a_cycle():
    # c reads b, but b runs after c: adding b to c's after would make a cycle
    text = design(T, A, cond("out.b.x == 1", '["a"]'),
                  '{"id": "b", "type": "agent", "prompt": "p", "after": ["c"]}')
    doc, findings = check_text(text)
    target = [f for f in findings if f.rule == "not-upstream"]
    assert target and fixes_for(doc, target) == []
