"""A fix offers every plausible value (issue 29): the closest kinds (never only `note`,
which silently takes a step out of the run), every enum value, a number meant as text."""

from __future__ import annotations

import pytest

from hwf_lsp.analysis.findings import check_text
from hwf_lsp.analysis.fixes import fixes_for

T = '{"id": "t", "type": "trigger"}'


def design(*nodes: str) -> str:
    return '{"name": "d", "nodes": [' + ", ".join(nodes) + "]}"


# (case, design, rule, the fix titles offered, in order; the preferred one first)
CASES = [
    ("unknown kind robot", design(T, '{"id": "r", "type": "robot", "after": ["t"]}'),
     "known-kind", ["Change type to 'agent'", "Change type to 'condition'",
                    "Change type to 'approval'", "Change type to 'output'",
                    "Change type to 'note'"]),
    ("a typo of a kind", design(T, '{"id": "r", "type": "outptu", "after": ["t"]}'),
     "known-kind", ["Change type to 'output'", "Change type to 'agent'",
                    "Change type to 'condition'", "Change type to 'approval'",
                    "Change type to 'note'"]),
    ("a note written as one", design(T, '{"id": "n", "type": "memo", "text": "hi"}'),
     "known-kind", ["Change type to 'note'", "Change type to 'agent'",
                    "Change type to 'condition'", "Change type to 'approval'",
                    "Change type to 'output'"]),
    ("on_timeout", design(T, '{"id": "w", "type": "approval", "question": "q", '
                          '"timeout_minutes": 5, "on_timeout": "ignore", "after": ["t"]}'),
     "deadline", ["Change on_timeout to 'reject'", "Change on_timeout to 'escalate'"]),
    ("color", design(T, '{"id": "n", "type": "note", "color": "purple"}'), "note-color",
     ["Change color to 'red'", "Change color to 'blue'", "Change color to 'yellow'",
      "Change color to 'green'", 'Change color to ""']),
    ("title a number", design(T, '{"id": "o", "type": "output", "title": 42, '
                              '"after": ["t"]}'), "field-type", ['Make title the text "42"']),
]


@pytest.mark.parametrize(("text", "rule", "titles"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_fix_choices(text, rule, titles):
    doc, findings = check_text(text)
    fixes = fixes_for(doc, [f for f in findings if f.rule == rule])
    assert sorted(f.title for f in fixes) == sorted(titles)
    assert [f.title for f in fixes if f.preferred] == titles[:1]
    assert [f.title for f in fixes][0] == titles[0]
