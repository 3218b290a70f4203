"""Conditions: the grammar with exact error spans, evaluation, and bounded time."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.timing import LINEAR, growth

from hwf_lsp.rules.conditions import (
    Condition,
    ConditionError,
    evaluate,
    json_equal,
    parse_condition,
    resolve_path,
)
from hwf_lsp.rules.vocabulary import MAX_EXPRESSION_LENGTH, MAX_PATH_SEGMENTS

# (text, node, path, op, literal)
VALID = [
    ('out.a.b == 1', "a", ("b",), "==", 1),
    ('out.review.verdict == "ok"', "review", ("verdict",), "==", "ok"),
    ('  out.a.0.x>="hi" ', "a", (0, "x"), ">=", "hi"),
    ("out.a.b!=null", "a", ("b",), "!=", None),
    ("out.a.b == true", "a", ("b",), "==", True),
    ("out.a.b == false", "a", ("b",), "==", False),
    ("out.a.b < -0.5e3", "a", ("b",), "<", -500.0),
    ("out.a.b <= 0", "a", ("b",), "<=", 0),
    ("out.a.b > 1.25", "a", ("b",), ">", 1.25),
    ("out.a-1.key_2.10 == 3", "a-1", ("key_2", 10), "==", 3),
    ("out.a.007 == 3", "a", ("007",), "==", 3),
    ('out.a.b == "say \\"hi\\" \\u00e9\\n"', "a", ("b",), "==", 'say "hi" é\n'),
    ('out.a.b == ""', "a", ("b",), "==", ""),
    ('out.a.b == "=="', "a", ("b",), "==", "=="),
    ("\tout.a.b\n==\n2\n", "a", ("b",), "==", 2),
    ("out." + "a" + ".k" * MAX_PATH_SEGMENTS + " == 1", "a", ("k",) * MAX_PATH_SEGMENTS, "==", 1),
]


@pytest.mark.parametrize("text,node,path,op,literal", VALID)
def test_valid_conditions_parse(text, node, path, op, literal):
    cond = parse_condition(text)
    assert (cond.node, cond.path, cond.op, cond.literal) == (node, path, op, literal)
    assert type(cond.literal) is type(literal)
    # spans point at the parts in the source text
    assert text[slice(*cond.node_span)] == node
    assert text[slice(*cond.op_span)] == op
    assert text[slice(*cond.path_span)] == ".".join(str(p) for p in path)
    assert text[slice(*cond.literal_span)].strip() == text[cond.literal_span[0]:].strip()


def test_spans_of_a_simple_condition():
    cond = parse_condition('out.a.b.0 <= "x"')
    assert cond == Condition("a", ("b", 0), "<=", "x", (4, 5), (6, 9), (10, 12), (13, 16))


# (text, message fragment, offending text at the span)
INVALID = [
    ("", "empty condition", ""),
    ("   ", "empty condition", "   "),
    ("x.a.b == 1", "starts with out.", "x.a.b"),
    ("outa.b == 1", "starts with out.", "outa.b"),
    ("out.", "expected a node id", "out."),
    ("out. a.b == 1", "expected a node id", "out."),
    ("out..b == 1", "expected a node id", "."),
    ("out.a == 1", "expected .<path>", "a"),
    ("out.a", "expected .<path>", "a"),
    ("out.a. == 1", "expected a key or list index", "."),
    ("out.a..b == 1", "expected a key or list index", "."),
    ("out.a.b$ == 1", "'$' cannot appear", "$"),
    ("out.a$.b == 1", "'$' cannot appear", "$"),
    ("out.a.b[0] == 1", "'[' cannot appear", "["),
    ("out.a.b", "expected an operator", "b"),
    ("out.a.b = 1", "use == to compare", "="),
    ("out.a.b=1", "use == to compare", "="),
    ("out.a.b c == 1", "expected an operator", "c"),
    ("out.a.b ==", "expected a value", "=="),
    ("out.a.b == yes", "expected a JSON number", "yes"),
    ("out.a.b == 'x'", "double quotes", "'x'"),
    ("out.a.b == True", "must be lowercase", "True"),
    ("out.a.b == NULL", "must be lowercase", "NULL"),
    ('out.a.b == "x', "unterminated string", '"x'),
    ('out.a.b == "x\\q"', "invalid escape", "\\q"),
    ('out.a.b == "x\\u12"', "invalid escape", "\\u"),
    ('out.a.b == "a\tb"', "control character", "\t"),
    ("out.a.b == 1 2", "unexpected text after the value", "2"),
    ("out.a.b == 1 and out.a.c == 2", "unexpected text after", "and out.a.c == 2"),
    ("out.a.b == 01", "expected a JSON number", "01"),
    ("out.a.b == 1.", "expected a JSON number", "1."),
    ("out.a.b == .5", "expected a JSON number", ".5"),
    ("out.a.b == +1", "expected a JSON number", "+1"),
    ("out.a.b == 1e999", "out of range", "1e999"),
    ("out.a.b == truex", "expected a JSON number", "truex"),
    ("out.a.b === 1", "after the operator", "="),
    ("out.a.b <== 1", "after the operator", "="),
    ("out.a.b =< 1", "use == to compare", "="),
    ("out." + "a" + ".k" * (MAX_PATH_SEGMENTS + 1) + " == 1", "more than", "k"),
]


@pytest.mark.parametrize("text,fragment,offending", INVALID)
def test_invalid_conditions_have_exact_spans(text, fragment, offending):
    with pytest.raises(ConditionError) as caught:
        parse_condition(text)
    error = caught.value
    assert fragment in error.msg
    assert text[error.start:error.end] == offending
    if text:
        assert error.end > error.start


def test_too_long_is_rejected_before_scanning():
    text = "out.a.b == " + "1" * MAX_EXPRESSION_LENGTH
    with pytest.raises(ConditionError) as caught:
        parse_condition(text)
    assert (caught.value.start, caught.value.end) == (0, len(text))
    assert str(MAX_EXPRESSION_LENGTH) in caught.value.msg


def rejected(text: str) -> ConditionError | None:
    """`parse_condition(text)`'s error, if it raises one."""
    try:
        parse_condition(text)
    except ConditionError as error:
        return error
    return None


# Each text as a function of n, and the n of the text the test is about: timed at n and at
# 10 n, the work must grow no more than linearly (support/timing.py).
HOSTILE = [
    (lambda n: "(" * n, 10_000),
    (lambda n: "out.a.b == " + "[" * n, 10_000),
    (lambda n: "x" * n, 1_000_000),
    (lambda n: "out." + "a." * n + "b == 1", 500_000),
    (lambda n: 'out.a.b == "' + "\\" * n, 999_990),
]


@pytest.mark.parametrize(("text_of", "n"), HOSTILE,
                         ids=["parens", "brackets", "letters", "path", "backslashes"])
def test_hostile_input_gets_a_clear_error_fast(text_of, n):
    error = rejected(text_of(n))
    assert error is not None and error.msg
    ratio, times = growth(text_of, rejected, n)
    assert ratio < LINEAR, times


UNDER_THE_CAP = [
    (lambda n: "out.a.b == " + "[" * n, 1_000),
    (lambda n: "out.a.b == " + "9" * n, MAX_EXPRESSION_LENGTH - 11),
    (lambda n: 'out.a.b == "' + "\\" * n, MAX_EXPRESSION_LENGTH - 12),
    (lambda n: 'out.a.b == "' + "\\u" * n, 900),
]


@pytest.mark.parametrize(("text_of", "n"), UNDER_THE_CAP,
                         ids=["brackets", "digits", "backslashes", "unicode escapes"])
def test_worst_cases_under_the_length_cap_are_fast(text_of, n):
    assert len(text_of(n)) <= MAX_EXPRESSION_LENGTH
    ratio, times = growth(text_of, rejected, n // 10)
    assert ratio < LINEAR, times


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_parser_raises_only_condition_error(text):
    try:
        cond = parse_condition(text)
    except ConditionError as error:
        assert 0 <= error.start <= error.end <= len(text)
    else:
        assert isinstance(cond, Condition)


@settings(max_examples=200, deadline=None)
@given(st.from_regex(r"out\.[a-z0-9_-]{1,5}(\.[A-Za-z0-9_-]{1,4}){1,3} ?(==|!=|<=|>=|<|>) ?"
                     r"(-?(0|[1-9][0-9]{0,2})|true|false|null|\"[a-z ]{0,5}\")", fullmatch=True))
def test_generated_valid_conditions_parse(text):
    assert parse_condition(text).node


# --- evaluation -----------------------------------------------------------

OUTPUTS = {
    "a": {"flag": True, "one": 1, "onef": 1.0, "zero": 0, "name": "bob", "none": None,
          "items": [10, 20, {"k": "v"}], "obj": {"0": "zero-key"}, "nan": float("nan")},
    "s": "plain text",
    "l": [1, 2],
}

# (condition, expected result, reason fragment or None)
EVALUATIONS = [
    ("out.a.flag == true", True, None),
    ("out.a.flag == 1", False, None),  # a bool never equals a number
    ("out.a.one == true", False, None),
    ("out.a.flag != 1", True, None),
    ("out.a.zero == false", False, None),
    ("out.a.one == 1.0", True, None),
    ("out.a.onef == 1", True, None),
    ("out.a.one != 1", False, None),
    ("out.a.none == null", True, None),
    ("out.a.none != null", False, None),
    ("out.a.zero == null", False, None),
    ('out.a.name == "bob"', True, None),
    ('out.a.name != "bob"', False, None),
    ('out.a.one == "1"', False, None),
    ('out.a.name < "carl"', True, None),
    ('out.a.name >= "bob"', True, None),
    ('out.a.name > "bobby"', False, None),
    ("out.a.one < 2", True, None),
    ("out.a.one <= 1", True, None),
    ("out.a.one > 1", False, None),
    ("out.a.one >= 0.5", True, None),
    ("out.a.items.1 == 20", True, None),
    ('out.a.items.2.k == "v"', True, None),
    ("out.a.items.3 == 1", False, "out of range"),
    ("out.a.items.x == 1", False, "not an index"),
    ('out.a.obj.0 == "zero-key"', True, None),  # a digit segment also matches a key "0"
    ("out.a.items == 1", False, None),  # a list never equals a scalar
    ("out.a.missing == 1", False, "no key 'missing'"),
    ("out.a.missing != 1", False, "no key 'missing'"),  # unresolvable is false, even for !=
    ("out.nobody.x == 1", False, "has no output"),
    ("out.s.x == 1", False, "not an object or list"),
    ("out.l.0 == 1", True, None),
    ("out.a.flag < 2", False, "cannot compare"),
    ("out.a.one < true", False, "cannot compare"),
    ('out.a.one < "2"', False, "cannot compare"),
    ("out.a.none < 1", False, "cannot compare"),
    ("out.a.items > 1", False, "cannot compare"),
    ("out.a.nan < 1", False, "NaN"),
    ("out.a.nan == 1", False, None),
]


@pytest.mark.parametrize("text,expected,reason", EVALUATIONS)
def test_evaluation(text, expected, reason):
    result, why = evaluate(parse_condition(text), OUTPUTS)
    assert result is expected
    if reason is None:
        assert why is None
    else:
        assert reason in why


def test_evaluate_never_raises_on_bad_outputs():
    cond = parse_condition("out.a.b == 1")
    assert evaluate(cond, None)[0] is False
    assert evaluate(cond, {"a": object()})[0] is False
    assert evaluate(cond, {"a": {"b": 10**5000}}) == (False, None)


@pytest.mark.parametrize("value,path,expected", [
    ({"a": [1, {"b": 2}]}, ("a", 1, "b"), (True, 2)),
    ({"a": [1]}, ("a", 1), (False, None)),
    ({"a": [1]}, ("a", "0"), (False, None)),
    ({"0": 5}, (0,), (True, 5)),
    ([7], (0,), (True, 7)),
    (3, ("x",), (False, None)),
    ({"a": None}, ("a",), (True, None)),
    ({}, (), (True, {})),
])
def test_resolve_path(value, path, expected):
    assert resolve_path(value, path) == expected


@pytest.mark.parametrize("left,right,equal", [
    (True, 1, False), (1, True, False), (False, 0, False), (0, False, False),
    (1, 1.0, True), ("a", "a", True), (None, None, True), (None, False, False),
    ([1], 1, False), ({}, None, False), (True, True, True),
])
def test_json_equal(left, right, equal):
    assert json_equal(left, right) is equal
