"""The free-text fast path: whenever it answers, it answers what a full check would.

Property: for designs with defects, warnings, escapes, duplicate keys and more than 50
nodes, and random single edits (inside free-text strings, blanking them, inserting
quotes and backslashes, on or next to findings, anywhere at all), `shifted_findings`
either declines (None) or returns exactly check_text(new_text)'s findings.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from bench.gen import design_with_nodes
from hwf_lsp.analysis.check import check_text
from hwf_lsp.analysis.incremental import free_text_token, shift_within_token, shifted_findings

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

QUIRKY = json.dumps({
    "name": "quirky",
    "nodes": [
        {"id": "start", "type": "trigger", "title": "Go \u00e9\U0001F600"},
        {"id": "a", "type": "agent", "after": ["start"], "prompt": "line\nnext \"q\" \\ \u00e9",
         "profile": "default", "model": "m", "retries": 9},
        {"id": "b", "type": "agent", "after": ["a"], "prompt": "  ", "title": 5},
        {"id": "ask", "type": "approval", "after": ["b"], "question": "Ship?",
         "on_timeout": "later", "promt": "typo"},
        {"id": "c", "type": "condition", "after": ["start"], "expression": "out.ask.ok == true"},
        {"id": "n", "type": "note", "text": "remember \\u escapes", "color": "pink"},
        {"id": "q", "type": "approval", "after": ["c"], "question": ""},
        {"id": "x", "type": "mystery", "prompt": "unknown kind"},
    ],
}, indent=1, ensure_ascii=False)
DUPLICATES = (
    '{"name": "dup", "nodes": [{"id": "t", "type": "trigger"},\n'
    ' {"id": "a", "type": "agent", "after": ["t"], "prompt": "first", "prompt": "second"},\n'
    ' {"id": "a", "type": "note", "text": "\\ud83d\\ude00 pair", "title": "T", "title": "U"}],\n'
    ' "nodes": [{"id": "t", "type": "trigger", "title": "only"}]}\n'
)
ESCAPED = json.dumps({"nodes": [
    {"id": "t", "type": "trigger", "title": "\u2028sep\u2029"},
    {"id": "a", "type": "agent", "after": ["t"], "prompt": "tab\there \u0001 \ud800 lone"},
]})


def corpus() -> list[str]:
    texts = [p.read_text(encoding="utf-8") for p in sorted(EXAMPLES.rglob("*.json"))
             if not p.name.endswith(".expected.json")]
    texts += [QUIRKY, DUPLICATES, ESCAPED, design_with_nodes(12).text,
              design_with_nodes(55).text]
    return texts


TEXTS = corpus()
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_FREE_TEXT = re.compile(r'"(?:prompt|question|title|text|profile|model)":\s*("(?:[^"\\]|\\.)*")')
PIECES = ['"', "\\", "\\n", "\\u00e9", "\\u", " ", "", "x", "yz", "\u00e9", "\U0001F600", "\n",
          "\t", '\\"', "}", ",", "  ", "out.a.ok == 1"]


def check(text: str, start: int, end: int, replacement: str) -> bool:
    """Assert the property for one edit; True when the fast path answered."""
    doc, findings = check_text(text)
    got = shifted_findings(doc, findings, start, end, replacement)
    if got is None:
        return False
    new_text = text[:start] + replacement + text[end:]
    assert got == check_text(new_text)[1], (start, end, replacement)
    return True


@st.composite
def edits(draw):
    text = draw(st.sampled_from(TEXTS))
    how = draw(st.sampled_from(["free-text", "free-text", "in-string", "blank", "finding",
                                "anywhere"]))
    replacement = draw(st.one_of(st.sampled_from(PIECES), st.text(max_size=4)))
    if how in ("free-text", "in-string", "blank"):
        pattern = _FREE_TEXT if how != "in-string" else _STRING
        tokens = [m.span(m.lastindex or 0) for m in pattern.finditer(text)] or [
            m.span() for m in _STRING.finditer(text)]
        token_start, token_end = draw(st.sampled_from(tokens))
        if how == "blank":
            return text, token_start + 1, token_end - 1, draw(st.sampled_from(["", " ", "\\t"]))
        start = draw(st.integers(token_start, token_end))
        end = draw(st.integers(start, min(token_end, start + 3)))
        return text, start, end, replacement
    if how == "finding":
        _, findings = check_text(text)
        if findings:
            finding = draw(st.sampled_from(findings))
            start = draw(st.integers(max(0, finding.start - 2), finding.end + 2))
            end = draw(st.integers(start, min(len(text), finding.end + 3)))
            return text, min(start, len(text)), min(end, len(text)), replacement
    start = draw(st.integers(0, len(text)))
    end = draw(st.integers(start, min(len(text), start + 4)))
    return text, start, end, replacement


@settings(max_examples=2500, deadline=None, suppress_health_check=list(HealthCheck))
@given(edits())
def test_fast_path_equals_full_check(edit):
    event("fast path" if check(*edit) else "full check")


def _inside(text: str, needle: str, skip: int = 0) -> int:
    """An offset inside the first occurrence of `needle` (a value's text) after `skip`."""
    return text.index(needle, skip) + 1


@pytest.mark.parametrize("name, text, needle, delete, replacement, fast", [
    ("type a prompt character", QUIRKY, "next", 0, "Z", True),
    ("replace a title character", QUIRKY, "Go ", 1, "W", True),
    ("profile", QUIRKY, "default", 2, "", True),
    ("note text", QUIRKY, "remember", 1, "xx", True),
    ("quote ends the string", QUIRKY, "next", 0, '"', False),
    ("a lone backslash", QUIRKY, "next", 0, "\\", False),
    ("an escaped quote is fine", QUIRKY, "next", 0, '\\"', True),
    ("a raw newline is not JSON", QUIRKY, "next", 0, "\n", False),
    ("blanking a prompt", QUIRKY, "unknown kind", 12, " ", False),
    ("a blank prompt stays a defect", QUIRKY, '"  "', 0, "x", False),
    ("the expression is not free text", QUIRKY, "out.ask", 0, "z", False),
    ("an id is not free text", QUIRKY, '"ask"', 1, "z", False),
    ("a key is not a value", QUIRKY, '"prompt"', 1, "z", False),
    ("a root-level field", QUIRKY, '"quirky"', 1, "z", False),
    ("the typo'd field's value", QUIRKY, '"typo"', 1, "z", False),
    ("title holding a number", QUIRKY, '"title": 5', 10, "6", False),
    ("the losing duplicate prompt", DUPLICATES, "first", 0, "z", True),
    ("inside a surrogate pair escape", DUPLICATES, "ude00", 1, "z", False),
    ("another valid escape", DUPLICATES, "ude00", 1, "0", True),
])
def test_cases(name, text, needle, delete, replacement, fast):
    start = _inside(text, needle)
    if needle.startswith('"'):
        start -= 1
    assert check(text, start, start + delete, replacement) is fast, name


def test_the_bench_edit_takes_the_fast_path_and_keystrokes_chain():
    doc = design_with_nodes(50)
    text = doc.text
    parsed, findings = check_text(text)
    assert findings  # the generated designs carry defects
    token = free_text_token(parsed, doc.edit_offset, doc.edit_offset + 1)
    assert token is not None
    for k in range(20):  # type 20 characters, each from the previous result alone
        at = doc.edit_offset + k
        result = shift_within_token(text, findings, token, at, at, "ab"[k % 2])
        assert result is not None
        text = text[:at] + "ab"[k % 2] + text[at:]
        findings, token = result.findings, result.token
        assert findings == check_text(text)[1]
