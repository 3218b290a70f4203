"""The keystroke re-check: whenever it answers, it answers what a full check would.

Property: for designs with defects, warnings, escapes, duplicate keys and more than 50
nodes, and chains of random edits (inside any string, in free text, blanking values,
in and around numbers and literals, in the whitespace between tokens, inserting quotes
and backslashes, on or next to findings, anywhere at all), each step's
`recheck` either declines (None: the caller checks in full and starts a new base) or
returns exactly check_text(new_text)'s findings and the new text's value -- also after
many steps on one base and after a request re-parsed the text (a new base).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from bench.gen import design_of_size, design_with_nodes
from hwf_lsp.analysis.check import check_recheckable, check_text
from hwf_lsp.analysis.incremental import EditMap, recheck
from hwf_lsp.analysis.jsontree import parse

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
SAFE = st.sampled_from(["", "x", "7", " ", "\u00e9", "\U0001F600", "\\n", '\\"', "\\u0041", "n0",
                        "t", "out.", "ghost", ".score >= 1"])
"""Replacements that keep a string a string: most keystrokes while typing."""
_SCALAR = re.compile(r"(?<=[:\[,\s])(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)"
                     r"(?=[\s,\]}])")
NUMERIC = st.sampled_from(["0", "7", "-", ".", ".5", "e", "e1", "E-2", "", "x", " ", "true",
                           "null", "00", "1e999"])
"""Keystrokes in a number: most keep it one, some make it a word or split it."""
_SPACE_RUN = re.compile(r"[ \t\r\n]+")
SPACES = st.sampled_from(["", " ", "\n", "\t", "  ", "\r\n", "\n    ", "\r"])
"""Formatting keystrokes: Enter, Tab, spaces, deleting them."""
_KEY_END = re.compile(r"\s*:")
_FREE_TEXT = re.compile(r'"(?:prompt|question|title|text|profile|model)":\s*("(?:[^"\\]|\\.)*")')
PIECES = ['"', "\\", "\\n", "\\u00e9", "\\u", " ", "", "x", "yz", "\u00e9", "\U0001F600", "\n",
          "\t", '\\"', "}", ",", "  ", "out.a.ok == 1"]


def full(text: str):
    return check_recheckable(parse(text))[1]


def step(state, text: str, start: int, end: int, replacement: str):
    """One edit of `text` (whose state is `state`, maybe None): asserts the property and
    returns (new text, its state, whether the re-check answered)."""
    new_text = text[:start] + replacement + text[end:]
    got = recheck(state, start, end, replacement, new_text) if state is not None else None
    if got is None:
        return new_text, full(new_text), False
    doc, findings = check_text(new_text)
    assert got.findings == findings, (start, end, replacement)
    assert got.graph.graph == doc.to_python()
    assert got.text == new_text
    return new_text, got, True


def check(text: str, start: int, end: int, replacement: str) -> bool:
    """Assert the property for one edit; True when the re-check answered."""
    return step(full(text), text, start, end, replacement)[2]


@st.composite
def edit_of(draw, text: str):
    how = draw(st.sampled_from(["in-value"] * 5 + ["free-text"] * 2 + ["in-scalar"] * 2 + [
        "spacing"] * 2 + ["in-string", "blank", "finding", "anywhere"]))
    replacement = draw(st.one_of(*[SAFE] * 5, st.sampled_from(PIECES), st.text(max_size=4)))
    if how in ("free-text", "in-value", "in-string", "blank"):
        pattern = _FREE_TEXT if how == "free-text" else _STRING
        tokens = [m.span(m.lastindex or 0) for m in pattern.finditer(text)
                  if how != "in-value" or not _KEY_END.match(text, m.end())] or [
            m.span() for m in _STRING.finditer(text)]
        if tokens:
            token_start, token_end = draw(st.sampled_from(tokens))
            if how == "blank":
                return token_start + 1, token_end - 1, draw(st.sampled_from(["", " ", "\\t"]))
            if how == "in-value":  # strictly inside the quotes: a keystroke while typing
                token_start, token_end = token_start + 1, token_end - 1
            start = draw(st.integers(token_start, token_end))
            end = draw(st.integers(start, min(token_end, start + 3)))
            return start, end, replacement
    if how == "spacing":
        runs = [m.span() for m in _SPACE_RUN.finditer(text)]
        if runs:
            run_start, run_end = draw(st.sampled_from(runs))
            start = draw(st.integers(run_start, run_end))
            end = draw(st.integers(start, run_end))
            return start, end, draw(SPACES)
    if how == "in-scalar":
        tokens = [m.span() for m in _SCALAR.finditer(text)]
        if tokens:
            token_start, token_end = draw(st.sampled_from(tokens))
            start = draw(st.integers(token_start, token_end))
            end = draw(st.integers(start, min(token_end + 1, start + 2)))
            return start, end, draw(st.one_of(NUMERIC, st.sampled_from(PIECES)))
    if how == "finding":
        _, findings = check_text(text)
        if findings:
            finding = draw(st.sampled_from(findings))
            start = draw(st.integers(max(0, finding.start - 2), min(len(text), finding.end + 2)))
            end = draw(st.integers(start, min(len(text), finding.end + 3)))
            return start, end, replacement
    start = draw(st.integers(0, len(text)))
    end = draw(st.integers(start, min(len(text), start + 4)))
    return start, end, replacement


@settings(max_examples=2500, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(TEXTS), st.integers(1, 8), st.integers(0, 8), st.data())
def test_recheck_equals_full_check_along_a_chain(text, count, rebase_at, data):
    state = full(text)
    for number in range(count):
        if number == rebase_at and state is not None:  # a request parsed this text
            state = state.rebased(parse(text))
        start, end, replacement = data.draw(edit_of(text))
        text, state, took = step(state, text, start, end, replacement)
        event(f"step {min(number, 2)}{'+' if number >= 2 else ''}: "
              f"{'re-checked' if took else 'full check'}")


@pytest.mark.parametrize("name, text, needle, at, delete, replacement, fast", [
    ("type a prompt character", QUIRKY, "next", 1, 0, "Z", True),
    ("replace a title character", QUIRKY, "Go ", 1, 1, "W", True),
    ("profile", QUIRKY, "default", 1, 2, "", True),
    ("note text", QUIRKY, "remember", 1, 1, "xx", True),
    ("quote ends the string", QUIRKY, "next", 1, 0, '"', False),
    ("a lone backslash", QUIRKY, "next", 1, 0, "\\", False),
    ("an escaped quote is fine", QUIRKY, "next", 1, 0, '\\"', True),
    ("a raw newline is not JSON", QUIRKY, "next", 1, 0, "\n", False),
    ("blanking a prompt", QUIRKY, "unknown kind", 0, 12, " ", True),
    ("a blank prompt stays a defect", QUIRKY, '"  "', 1, 0, "x", True),
    ("the expression", QUIRKY, "out.ask", 5, 1, "z", True),
    ("an id", QUIRKY, '"ask"', 1, 1, "z", True),
    ("an escape of the same length in a condition", QUIRKY, "out.ask", 0, 2, "\\n", True),
    ("an after entry", QUIRKY, '    "start"', 6, 1, "X", True),
    ("the closing quote", QUIRKY, '"ask"', 4, 1, "z", False),
    ("across two values", QUIRKY, '"ask",\n', 2, 6, "", False),
    ("a key is not a value", QUIRKY, '"prompt"', 1, 1, "z", False),
    ("the design's name picks its run", QUIRKY, '"quirky"', 1, 1, "z", False),
    ("the typo'd field's value", QUIRKY, '"typo"', 1, 1, "z", True),
    ("title holding a number", QUIRKY, '"title": 5', 9, 1, "6", True),
    ("a digit typed after the last", QUIRKY, '"retries": 9', 12, 0, "0", True),
    ("a digit typed before the first", QUIRKY, '"retries": 9', 11, 0, "1", True),
    ("retries made a fraction", QUIRKY, '"retries": 9', 12, 0, ".5", True),
    ("a minus sign", QUIRKY, '"retries": 9', 11, 0, "-", True),
    ("a number made a word", QUIRKY, '"retries": 9', 12, 0, "x", False),
    ("a half-typed exponent", QUIRKY, '"retries": 9', 12, 0, "e", False),
    ("a space inside a number", QUIRKY, '"retries": 9', 12, 0, " 1", False),
    ("the number deleted", QUIRKY, '"retries": 9', 11, 1, "", False),
    ("a number made NaN", QUIRKY, '"retries": 9', 11, 1, "NaN", False),
    ("a number made a string", QUIRKY, '"retries": 9', 11, 1, '"9"', False),
    ("a number made true", QUIRKY, '"retries": 9', 11, 1, "true", True),
    ("the comma after a number", '{"nodes": [{"id": "t", "type": "trigger", "retries": 9,'
     ' "x": 1}]}', "9,", 1, 1, "", False),
    ("Enter after a comma", QUIRKY, '"id": "start",', 14, 0, "\n   ", True),
    ("indentation removed", QUIRKY, '\n   "type": "trigger"', 1, 3, "", True),
    ("a tab after a colon", QUIRKY, '"id": "start"', 5, 0, "\t", True),
    ("a space inside a key is a key edit", QUIRKY, '"type"', 2, 0, " ", False),
    ("a space inside a prompt is a string edit", QUIRKY, "next", 1, 0, " ", True),
    ("a space between adjacent tokens", '{"nodes":[{"id":"t","type":"trigger"}]}', '"id":', 5,
     0, " ", False),
    ("a space after the root", QUIRKY + " ", "}\n ", 2, 0, "\n", True),
    ("a space inside a number splits it", '{"nodes": [{"id": "t", "retries": 12}]}', "12", 1,
     0, " ", False),
    ("CRLF for LF", QUIRKY, ',\n "nodes"', 1, 1, "\r\n", True),
    ("a digit before the comma", '{"nodes": [{"id": "t", "type": "trigger", "retries": 9,'
     ' "x": 1}]}', "9,", 1, 0, "1", True),
    ("the losing duplicate prompt", DUPLICATES, "first", 1, 0, "z", True),
    ("the losing nodes list", DUPLICATES, '"agent"', 1, 1, "z", True),
    ("inside a surrogate pair escape", DUPLICATES, "ude00", 1, 1, "z", False),
    ("another valid escape", DUPLICATES, "ude00", 1, 1, "0", True),
    ("a syntax error elsewhere", '{"nodes": [{"id": "t", "type": "trigger"},]}', '"t"', 1, 1,
     "u", False),
])
def test_cases(name, text, needle, at, delete, replacement, fast):
    start = text.index(needle) + at
    assert check(text, start, start + delete, replacement) is fast, name


@pytest.mark.parametrize("edit", ["prompt", "id"])
def test_the_bench_edits_chain_on_one_base(edit):
    """200 keystrokes in one value, each re-checked from the previous state alone."""
    doc = design_of_size("10k", 10_000)
    text, state = doc.text, full(doc.text)
    assert state is not None and state.findings  # the generated designs carry defects
    at = doc.offset_of(edit)
    for k in range(200):
        char = "xy"[k % 2]
        text, state, took = step(state, text, at, at + (k % 3 == 0), char)
        assert took, k
        at += 1 if k % 3 else 0
    assert state.base.text == doc.text  # never parsed again


@pytest.mark.parametrize("edits, offset, expected", [
    ((), 10, (10, None)),
    (((5, 9, 3),), 4, (4, None)),
    (((5, 9, 3),), 5, (5, None)),
    (((5, 9, 3),), 6, (-1, (5, 9))),
    (((5, 9, 3),), 11, (-1, (5, 9))),
    (((5, 9, 3),), 12, (9, None)),
    (((5, 9, -2), (20, 24, 1)), 18, (20, None)),
    (((5, 9, -2), (20, 24, 1)), 19, (-1, (20, 24))),
])
def test_edit_map_to_base(edits, offset, expected):
    assert EditMap(edits).to_base(offset) == expected


def test_edit_map_spans_and_merges():
    emap = EditMap().with_edit(20, 24, 1).with_edit(5, 9, -2).with_edit(20, 24, 2)
    assert emap.edits == ((5, 9, -2), (20, 24, 3))
    assert emap.span(5, 9) == (5, 7)
    assert emap.span(20, 24) == (18, 25)
    assert emap.at(30) == 31
