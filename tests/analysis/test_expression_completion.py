"""The inspector's completion of a condition's expression (`expression_completion.py`):
the same items the text editor offers inside the condition string, with ranges in the
expression as shown (not JSON-escaped), UTF-16 offsets."""

from __future__ import annotations

import json

import pytest

from hwf_lsp.analysis.completion_items import complete
from hwf_lsp.analysis.expression_completion import (
    ExpressionCompletionError,
    complete_expression,
)
from hwf_lsp.analysis.newest_run import RunInfo
from hwf_lsp.jsontext.jsontree import parse

NODES = [
    {"id": "t", "type": "trigger"},
    {"id": "a", "type": "agent", "prompt": "Draft", "after": ["t"]},
    {"id": "b", "type": "agent", "prompt": "Review", "after": ["a"]},
    {"id": "c", "type": "condition", "expression": "out.b.score >= 7", "after": ["b"]},
    {"id": "d", "type": "agent", "prompt": "After", "after": ["c"]},
    {"id": "n", "type": "note", "text": "hi"},
]
TEXT = json.dumps({"name": "d", "nodes": NODES}, indent=2)
RUN = RunInfo.from_state({"run_id": "abc123", "name": "d", "status": "completed",
                          "outputs": {"a": "text", "b": {"verdict": "ok", "score": 8,
                                                         "nested": {"deep": [1, 2]}}}},
                         "/runs/abc123.json")


def answer(expression_with_cursor: str, node: str = "c") -> list[dict]:
    offset = expression_with_cursor.index("|")
    expression = expression_with_cursor.replace("|", "")
    return complete_expression(parse(TEXT), node, expression, offset, RUN)["items"]


def accept(expression_with_cursor: str, label: str) -> str:
    expression = expression_with_cursor.replace("|", "")
    item = next(i for i in answer(expression_with_cursor) if i["label"] == label)
    return expression[:item["start"]] + item["text"] + expression[item["end"]:]


# (expression with the cursor `|`, the first labels in order, the item to accept, the result)
CASES = [
    ("|", ["out.b", "out.a"], "out.b", "out.b."),
    ("ou|", ["out.b", "out.a"], "out.a", "out.a."),
    ("out.|", ["b", "a"], "b", "out.b."),
    ("out.b|", ["b", "a"], "b", "out.b."),
    ("out.b.|", ["verdict", "score", "nested"], "nested", "out.b.nested."),
    ("out.b.sc|", ["verdict", "score", "nested"], "score", "out.b.score"),
    ("out.b.nested.deep.|", ["0", "1"], "1", "out.b.nested.deep.1"),
    ("out.b.score |", ["==", "!=", "<", "<=", ">", ">="], ">=", "out.b.score >= "),
    ("out.b.score >= |", ["8"], "8", "out.b.score >= 8"),
    ("out.b.verdict == |", ['"ok"', "true", "false", "null"], '"ok"', 'out.b.verdict == "ok"'),
    ("out.b.verdict == tr|", ['"ok"', "true", "false", "null"], "true",
     "out.b.verdict == true"),
]


@pytest.mark.parametrize(("typed", "first", "label", "result"), CASES,
                         ids=[case[0] for case in CASES])
def test_each_part_of_a_condition_is_offered(typed: str, first: list[str], label: str,
                                             result: str) -> None:
    assert [i["label"] for i in answer(typed)][:len(first)] == first
    assert accept(typed, label) == result


def test_the_nodes_offered_are_the_ones_the_text_editor_offers() -> None:
    """One source of items: the inspector gets what completion inside the document's
    condition string gives at the same spot, same order."""
    at = TEXT.index('"out.b.score >= 7"') + len('"out.')
    in_text = complete(parse(TEXT), at, run=RUN)
    in_text.sort(key=lambda item: (item.sort_text or item.label, item.label))
    assert [i["label"] for i in answer("out.|b.score >= 7")] == [i.label for i in in_text]
    labels = {i["label"] for i in answer("out.|")}
    assert "c" not in labels and "d" not in labels and "n" not in labels  # itself, below, a note


def test_items_carry_what_the_list_shows() -> None:
    score = next(i for i in answer("out.b.|") if i["label"] == "score")
    assert score["kind"] == "path" and score["detail"] == "8"
    assert "abc123" in score["documentation"]


def test_offsets_count_utf16_code_units() -> None:
    expression = 'out.b.verdict == "😀"'
    items = complete_expression(parse(TEXT), "c", expression, len(expression) + 1, RUN)["items"]
    ok = next(i for i in items if i["label"] == '"ok"')
    assert (ok["start"], ok["end"]) == (len("out.b.verdict == "), len(expression) + 1)


def test_a_node_the_design_does_not_have_gets_no_items() -> None:
    assert complete_expression(parse(TEXT), "gone", "out.", 4, RUN) == {"items": []}


@pytest.mark.parametrize("offset", [-1, 5])
def test_an_offset_outside_the_expression_is_refused(offset: int) -> None:
    with pytest.raises(ExpressionCompletionError, match="outside the expression"):
        complete_expression(parse(TEXT), "c", "out.", offset, RUN)


def test_without_a_run_only_the_grammar_is_offered() -> None:
    items = complete_expression(parse(TEXT), "c", "out.b.", 6, None)["items"]
    assert items == []
    ops = complete_expression(parse(TEXT), "c", "out.b.x ", 8, None)["items"]
    assert [i["label"] for i in ops] == ["==", "!=", "<", "<=", ">", ">="]
