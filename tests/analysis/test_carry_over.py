"""The keystroke carry-over (analysis/carry_over.py) either declines or gives exactly the
full check's findings: a table of edits that are and are not carried, chains of edits in
one string, and a property over random chains of edits anywhere in random designs."""

from __future__ import annotations

import json
import re
from json.decoder import scanstring

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.trees import check_tree, same_tree

from hwf_lsp.analysis.carry_over import carry_over, may_be_in_a_string, string_value_at
from hwf_lsp.analysis.check import check_text
from hwf_lsp.analysis.design import design_of
from hwf_lsp.analysis.jsontree import ParsedDocument, parse

DESIGN = {
    "name": "carry",
    "nodes": [
        {"id": "start", "type": "trigger", "title": "Start 😀 here"},
        {"id": "draft", "type": "agent", "after": ["start"], "prompt": "Write \\n it",
         "retries": 9},
        {"id": "ask", "type": "approval", "after": ["draft"], "question": "Ship?",
         "promt": "typo"},
        {"id": "gate", "type": "condition", "after": ["ask"], "expression": "out.ask.x == 1"},
        {"id": "note", "type": "note", "after": [], "text": "aa", "color": "red"},
        {"id": "late", "type": "agent", "after": ["ghost"], "prompt": "Review", "model": "m"},
    ],
    "prompt": "not in a node",
}
TEXT = json.dumps(DESIGN, indent=2, ensure_ascii=False)


def carried(text: str, start: int, end: int, replacement: str):
    """carry_over's findings for the edit, or None; the full check's findings."""
    doc, _ = check_text(text)
    new_text = text[:start] + replacement + text[end:]
    state = string_value_at(doc, start, end)
    result = None if state is None else carry_over(state, text, start, end, replacement,
                                                   None)
    return (None if result is None else result.findings), check_text(new_text)[1]


def at(needle: str, skip: int = 0, text: str = TEXT) -> int:
    return text.index(needle) + skip


@pytest.mark.parametrize(("start", "end", "replacement", "taken"), [
    (at('"Write'), at('"Write'), "x", False),  # before the opening quote
    (at('"Write', 1), at('"Write', 1), "x", True),  # just inside it
    (at("Write", 5), at("Write", 5), " more", True),  # after the prompt's escape
    (at(" it\""), at(" it\"") + 3, "", True),  # the end of the prompt, quote kept
    (at('it"', 2), at('it"', 2), "x", True),  # just before the closing quote
    (at('it"', 3), at('it"', 3), "x", False),  # after it
    (at("Write"), at("Write") + 12, "", True),  # the prompt becomes blank: a defect on it
    (at("Write"), at("Write"), '"', False),  # a quote ends the string early
    (at("Write"), at("Write"), "\\", False),  # a lone backslash: not a string
    (at("Write"), at("Write"), "\\u00e9", True),  # a complete escape
    (at("Ship"), at("Ship") + 1, "Z", True),  # a question
    (at("Start 😀"), at("Start 😀") + 6, "", True),  # a title, after an emoji
    (at('"text": "aa"', 10), at('"text": "aa"', 11), "b", True),  # a note's text
    (at('"red"', 1), at('"red"', 1), "x", True),  # a color: now not one of the list
    (at('"typo"', 1), at('"typo"', 1), "x", True),  # an unknown field's value
    (at('"draft"', 1), at('"draft"', 1), "x", True),  # an id: its references break
    (at('"draft"', 1), at('"draft"', 6), "", True),  # an id made empty
    (at('"draft"\n', 2), at('"draft"\n', 2), "x", True),  # an after entry
    (at('"ghost"', 1), at('"ghost"', 6), "draft", True),  # an after entry that resolves
    (at('"agent"', 2), at('"agent"', 2), "x", True),  # a type: agent -> axgent
    (at('"prompt": "Write', 1), at('"prompt": "Write', 1), "x", False),  # the key
    (at("out.ask"), at("out.ask") + 1, "O", False),  # an expression: the full check
    (at('"carry"', 1), at('"carry"', 1), "x", False),  # the design's name: the full check
    (at("not in a node"), at("not in a node"), "x", True),  # a string outside the nodes
    (at("Review"), at("Review") + 1, "r", True),  # the prompt of a node with an error
    (at('"retries": 9', 11), at('"retries": 9', 12), "2", False),  # a number
])
def test_what_is_carried_over(start: int, end: int, replacement: str, taken: bool) -> None:
    findings, expected = carried(TEXT, start, end, replacement)
    assert (findings is not None) == taken
    if findings is not None:
        assert findings == expected


def test_text_with_syntax_errors_is_never_carried() -> None:
    text = TEXT.replace('"retries": 9', '"retries": 9,')
    start = at("Write", 1, text)
    assert carried(text, start, start, "x")[0] is None


def test_a_repeated_keys_losing_value_changes_nothing() -> None:
    text = TEXT.replace('"question": "Ship?"', '"question": "Old", "question": "Ship?"')
    start = at("Old", 1, text)
    findings, expected = carried(text, start, start + 1, "")
    assert findings is not None and findings == expected


@pytest.mark.parametrize(("needle", "typed"), [
    ("Review", "abc😀"),  # into a prompt
    ('"late"', "12"),  # into an id other nodes could name
    ('"start"\n', "x1"),  # into an after entry: it stops resolving
    ('"agent"', "x"),  # into a type: the node's unknown fields change, no other node's
    ('"approval"', "s"),
])
def test_keystrokes_in_one_string_keep_one_base(needle: str, typed: str) -> None:
    doc, _ = check_text(TEXT)
    start = at(needle, 2)
    state = string_value_at(doc, start, start)
    text = TEXT
    for char in typed:
        state = carry_over(state, text, start, start, char, None)
        text = text[:start] + char + text[start:]
        assert state is not None and state.findings == check_text(text)[1]
        assert state.base is doc
        same_document(state.document(text), parse(text))
        start += 1


STRING_VALUE = re.compile(r'[:\[]\s*"')
"""Where a member's string value or an array's first string starts."""
FREE_VALUES = st.text(alphabet=st.sampled_from('abcdé😀"\\ \n'), min_size=0, max_size=8)


@st.composite
def edits(draw: st.DrawFn) -> tuple[str, int, int, str]:
    """A design with varied strings and defects, and one edit anywhere in it."""
    nodes = [{"id": "t", "type": "trigger", "title": draw(FREE_VALUES)}]
    for i in range(draw(st.integers(1, 4))):
        node = {"id": f"n{i}", "type": draw(st.sampled_from(["agent", "approval", "note"])),
                "after": [draw(st.sampled_from(["t", "ghost", f"n{i}"]))]}
        field = {"agent": "prompt", "approval": "question", "note": "text"}[node["type"]]
        node[field] = draw(FREE_VALUES)
        if draw(st.booleans()):
            node["model" if node["type"] == "agent" else "title"] = draw(FREE_VALUES)
        if node["type"] == "approval" and draw(st.booleans()):  # no-reject, its deadline
            node["options"] = draw(st.sampled_from([["approve"], ["approve", "reject"],
                                                    ["yes", "rejec"]]))
            node["timeout_minutes"] = 5
        if draw(st.booleans()):
            node["colour"] = draw(FREE_VALUES)  # an unknown field
        nodes.append(node)
    text = json.dumps({"name": "p", "nodes": nodes}, indent=draw(st.sampled_from([None, 2])),
                      ensure_ascii=draw(st.booleans()))
    values = [match.end() for match in STRING_VALUE.finditer(text)]
    if values and draw(st.booleans()):  # often inside a string value, near its ends too
        opening = draw(st.sampled_from(values)) - 1
        closing = scanstring(text, opening + 1)[1] - 1
        start = draw(st.integers(opening, closing + 1))
    else:
        start = draw(st.integers(0, len(text)))
    end = draw(st.integers(start, min(len(text), start + 3)))
    return text, start, end, draw(st.text(alphabet=st.sampled_from('xyz "\\\n😀'), max_size=2))


@settings(max_examples=1000, deadline=None)
@given(edits(), st.lists(st.tuples(st.integers(-3, 3), st.integers(0, 2),
                                   st.sampled_from(["x", "", '"', "\\", "😀", " "])),
                         max_size=4))
def test_carried_over_edits_give_the_full_checks_findings(edit, more) -> None:
    """A first edit, then more near it (offset from its start), each either carried over
    from the last state, or declined (then the next starts from a full check)."""
    text, start, end, replacement = edit
    doc, _ = check_text(text)
    state = string_value_at(doc, start, end)
    for shift, length, typed in [(0, end - start, replacement), *more]:
        at_ = min(max(start + shift, 0), len(text))
        stop = min(at_ + length, len(text))
        if state is None or not state.now[0] < at_ <= stop < state.now[1]:
            doc, _ = check_text(text)
            state = string_value_at(doc, at_, stop)
        new_text = text[:at_] + typed + text[stop:]
        state = None if state is None else carry_over(state, text, at_, stop, typed, None)
        if state is not None:
            assert state.findings == check_text(new_text)[1]
            same_document(state.document(new_text), parse(new_text))
        text, start = new_text, at_


def same_document(carried: ParsedDocument, parsed: ParsedDocument) -> None:
    """What a carried text's document gives is what parsing that text gives: the value,
    the tree, the nodes' objects, and the design's edges (the base's, when the edit kept
    them)."""
    assert carried.errors == [] and carried.to_python() == parsed.to_python()
    same_tree(carried.root, parsed.root, carried.text)
    check_tree(carried)
    ours, theirs = design_of(carried), design_of(parsed)
    assert [(i.id, i.kind, i.obj.start, i.obj.end) for i in ours.infos if i.obj] == \
        [(i.id, i.kind, i.obj.start, i.obj.end) for i in theirs.infos if i.obj]
    assert ours.children == theirs.children


@settings(max_examples=300, deadline=None)
@given(st.recursive(FREE_VALUES | st.integers(),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(FREE_VALUES, inner, max_size=3), max_leaves=8),
       st.sampled_from([None, 2]), st.booleans())
def test_the_quote_count_never_turns_away_an_offset_inside_a_string(value, indent, ascii_):
    """`may_be_in_a_string` may say yes outside strings (the tree decides then), never no
    inside one: every offset strictly inside a string token, and at its closing quote."""
    text = json.dumps({"v": value}, indent=indent, ensure_ascii=ascii_)
    inside = set()
    for match in re.finditer('"', text):
        if match.start() in inside:
            continue
        end = scanstring(text, match.start() + 1)[1]
        if match.start() == 0 or text[match.start() - 1] != "\\":
            inside.update(range(match.start() + 1, end))
    outside = set(range(len(text) + 1)) - inside
    assert all(may_be_in_a_string(text, offset) for offset in inside)
    assert not any(may_be_in_a_string(text, offset) for offset in outside
                   if text[offset - 1:offset] in ",:{}[] \n")
