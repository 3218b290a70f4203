"""Fix All never invents content (issue 43): a missing prompt, question or expression is
the author's to write, and so is a channel. Fix All leaves its finding; the quick fix inserts it empty, for the
author to fill, and is never preferred."""

from __future__ import annotations

import json

import pytest
from support.designs import design_text as design

from hwf_lsp.analysis.findings import check_text
from hwf_lsp.analysis.fix_all import fix_all
from hwf_lsp.analysis.fixes import fixes_for

T = '{"id": "t", "type": "trigger"}'
MISSING = [
    # (node without its words, the field)
    ('{"id": "a", "type": "agent", "after": ["t"]}', "prompt"),
    ('{"id": "q", "type": "approval", "after": ["t"]}', "question"),
    ('{"id": "c", "type": "condition", "after": ["t"]}', "expression"),
    ('{"id": "x", "type": "agnt", "after": ["t"]}', "prompt"),  # the kind fixed, payload empty
]


@pytest.mark.parametrize(("node", "name"), MISSING, ids=[m[1] + str(i) for i, m in
                                                          enumerate(MISSING)])
def test_fix_all_leaves_the_authors_words_to_the_author(node: str, name: str) -> None:
    text = design(T, node)
    result = fix_all(text)
    fixed = json.loads(result.text)["nodes"][1]
    assert fixed.get(name, "") == "", fixed  # nothing made up
    _, after = check_text(result.text)
    assert [(f.rule, f.field) for f in after] == [("required-payload", name)]


@pytest.mark.parametrize(("node", "name"), MISSING[:3], ids=[m[1] for m in MISSING[:3]])
def test_the_quick_fix_inserts_the_field_empty_and_is_not_preferred(node: str,
                                                                     name: str) -> None:
    text = design(T, node)
    doc, findings = check_text(text)
    (fix,) = fixes_for(doc, [f for f in findings if f.rule == "required-payload"])
    assert fix.title == f"Add an empty {name} to write" and not fix.preferred
    ((start, end, new),) = fix.edits
    assert json.loads(text[:start] + new + text[end:])["nodes"][1][name] == ""


def test_an_empty_field_gets_no_fix_that_would_change_nothing() -> None:
    text = design(T, '{"id": "a", "type": "agent", "prompt": "", "after": ["t"]}')
    doc, findings = check_text(text)
    assert fixes_for(doc, [f for f in findings if f.rule == "required-payload"]) == []


@pytest.mark.parametrize(("deliver", "left"), [("channel", "target"), ("chanel", "deliver")])
def test_fix_all_never_names_a_channel(deliver: str, left: str) -> None:
    text = design(T, '{"id": "o", "type": "output", "deliver": "' + deliver + '", '
                  '"after": ["t"]}')
    result = fix_all(text)
    assert result.text == text
    doc, after = check_text(result.text)
    assert [(f.rule, f.field) for f in after] == [("delivery", left)]
    titles = {f.title: f.preferred for f in fixes_for(doc, after)}  # offered to the author
    assert titles.get("Set a channel target", titles.get(
        "Change deliver to 'channel' with a target")) is False
