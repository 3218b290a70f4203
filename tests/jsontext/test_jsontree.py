"""The tolerant JSON parser: recovery while typing, exact positions, no failure, no recursion."""

from __future__ import annotations

import gc
import json
import math
import re
import time
import weakref
from contextlib import nullcontext
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.timing import CONSTANT, growth
from support.trees import check_tree, same_tree

from hwf_lsp.jsontext import fast_path, tolerant_parser, tree
from hwf_lsp.jsontext.jsontree import (
    BOM_MESSAGE,
    DEPTH_MESSAGE,
    MAX_DEPTH,
    JsonNode,
    Member,
    contains,
    parse,
    path_of,
    peek_member,
    source_offset,
)

# --- recovery: (text, recovered value, syntax messages in order) ---------------

RECOVERY_CASES = [
    ('{"a": "abc\n}', {"a": "abc"}, ["Unterminated string"]),
    ('{"a": 1 "b": 2}', {"a": 1, "b": 2}, ["Expected ',' or '}' after a member"]),
    # junk where the comma belongs: one error for the gap, not one more at the next key
    ('{"a": "b"x\n "c": 1}', {"a": "b", "c": 1}, ["Expected ',' or '}' after a member"]),
    ('{"a": 1 [2] "b": 2}', {"a": 1, "b": 2}, ["Expected ',' or '}' after a member"]),
    ('{"a": 1 "x" "b": 2}', {"a": 1, "b": 2}, ["Expected ',' or '}' after a member"]),
    ('{"a": 1 x "b": 2 y "c": 3}', {"a": 1, "b": 2, "c": 3},
     ["Expected ',' or '}' after a member"] * 2),
    ('{"a": 1,}', {"a": 1}, ["Trailing comma"]),
    ("[1, 2,]", [1, 2], ["Trailing comma"]),
    ("[1,,2]", [1, 2], ["Expected a value before ','"]),
    # a trailing comma is the one right before the closer, in arrays and objects alike
    ('{"name": "d", "nodes": [{"id": "t"},]}', {"name": "d", "nodes": [{"id": "t"}]},
     ["Trailing comma"]),
    ('{"a": [1, {"b": 2,},],}', {"a": [1, {"b": 2}]}, ["Trailing comma"] * 3),
    # ... and not a comma that something else followed (that thing got its own issue)
    ('{"a":, [1]}', {}, ["Expected a value", "Expected a property name in double quotes"]),
    ("[1, :]", [1], ["Unexpected ':' in an array"]),
    ("[true false]", [True, False], ["Expected ',' or ']' after an item"]),
    ('{"a": , "b": 1}', {"b": 1}, ["Expected a value"]),
    ('{"a" 1}', {"a": 1}, ["Expected ':' after the property name"]),
    ('{"a": 1} xyz', {"a": 1}, ["End of file expected"]),
    ('{"a":1}}', {"a": 1}, ["End of file expected"]),
    ('{"a": [1, 2', {"a": [1, 2]}, ["Expected ']' before the end of the text"]),
    ('{"a": {"b": [1, {"c"', {"a": {"b": [1, {}]}},
     ["Expected ':' after the property name", "Expected '}' before the end of the text"]),
    ('{"a": [1}', {"a": [1]}, ["Expected ']' before '}'"]),
    ("{a: 1, \"b\": 2}", {"b": 2}, ["Expected a property name in double quotes"]),
    ("{'a': 1}", {}, ["Expected a property name in double quotes"]),
    ('{"a": tru}', {"a": None}, ["Unexpected 'tru': expected a JSON value"]),
    ('{"a": NaN, "b": -Infinity}', {"a": None, "b": None},
     ["NaN is not a valid JSON number", "-Infinity is not a valid JSON number"]),
    ('"a\tb"', "a\tb", ["Invalid control character in string (escape it)"]),
    ('"a\\qb"', "aqb", ["Invalid escape sequence in string"]),
    ("", None, ["Expected a JSON value"]),
    ("  \n ", None, ["Expected a JSON value"]),
    ("]", None, ["Unexpected ']': expected a JSON value", "Expected a JSON value"]),
    # typing in the middle of a design: the rest of the document is still there
    ('{"nodes": [{"id": "a", "ty\n}]}', {"nodes": [{"id": "a"}]}, ["Unterminated string"]),
    ('{"nodes": [{"id": "a", "type": \n "after": []}]}', {"nodes": [{"id": "a", "after": []}]},
     ["Expected a value"]),
    ('{"nodes": [{"id": "a", "prompt": "hel\n "after": ["t"]}]}',
     {"nodes": [{"id": "a", "prompt": "hel", "after": ["t"]}]},
     ["Unterminated string", "Expected ',' or '}' after a member"]),
    # a BOM left in the text: the file had two (whoever read it dropped one)
    ('\ufeff{"a": 1}', {"a": 1}, [BOM_MESSAGE]),
    ('\ufeff\ufeff[1]', [1], [BOM_MESSAGE]),
    ("\ufeff", None, [BOM_MESSAGE, "Expected a JSON value"]),
    # valid but unusual input
    ('"\\ud800"', "\ud800", []),
    ('"\ud800 raw"', "\ud800 raw", []),
    ('["\\ud83d\\ude00"]', ["😀"], []),
    ("[" + "1" * 5000 + "]", [None], []),
    ("[1e400, -0, 1.5E+2]", [math.inf, 0, 150.0], []),
    ('{\r\n"a": 1\r\n}', {"a": 1}, []),
    ('{"a" : "x", "a": "y"}', {"a": "y"}, []),
]


def token_by_token():
    """Turn off the C scan of valid nested containers: every token goes through Python."""
    return mock.patch.object(tolerant_parser, "_SCAN_DEPTH", 1)


@pytest.mark.parametrize("scan", [True, False], ids=["scan", "tokens"])
@pytest.mark.parametrize(("text", "value", "messages"), RECOVERY_CASES)
def test_recovery(text: str, value: object, messages: list[str], scan: bool) -> None:
    with nullcontext() if scan else token_by_token():
        doc = parse(text)
        doc.root  # noqa: B018 - built inside the context
    assert doc.to_python() == value
    assert [issue.msg for issue in doc.errors] == messages
    for issue in doc.errors:
        assert 0 <= issue.start <= issue.end <= len(text)


def test_unterminated_string_ends_at_its_line() -> None:
    text = '{"a": "abc  \r\n  "b": 1}'
    doc = parse(text)
    node = doc.node_at_path(("a",))
    assert (node.kind, node.closed, node.value) == ("string", False, "abc  ")
    assert text[node.start : node.end] == '"abc  '
    assert doc.node_at_path(("b",)).value == 1


def test_unclosed_containers_reach_the_end() -> None:
    text = '{"a": [1, {"b": 2'
    doc = parse(text)
    outer, inner = doc.root, doc.node_at_path(("a",))
    assert (outer.closed, inner.closed) == (False, False)
    assert outer.end == inner.end == len(text)
    assert doc.node_at_path(("a", 1, "b")).value == 2


def test_huge_integer_is_a_number_without_value() -> None:
    node = parse("[" + "9" * 5000 + "]").node_at_path((0,))
    assert (node.kind, node.value, node.end - node.start) == ("number", None, 5000)


def test_a_bom_in_the_text_is_an_error_and_offsets_count_it() -> None:
    doc = parse('\ufeff{"a": 1}')
    assert [(i.start, i.end) for i in doc.errors] == [(0, 1)]
    assert doc.root.start == 1
    assert tree.last_member(doc.root, "a").key_start == 2


def test_a_bom_is_an_error_wherever_json_loads_refuses_it() -> None:
    """The parser is never more lenient than json.loads (the engine's stores use it)."""
    for text in ['\ufeff{"a": 1}', ' \ufeff{"a": 1}', '{"a": 1}\ufeff', '{\ufeff"a": 1}']:
        with pytest.raises(ValueError):
            json.loads(text)
        assert parse(text).errors, text


# --- a trailing comma is reported on the comma right before the closer ------------


@given(st.text(alphabet=st.sampled_from(list('{}[]:, "a1')), max_size=40))
@settings(max_examples=500, deadline=None)
def test_a_trailing_comma_issue_points_at_a_comma_before_a_closer(text: str) -> None:
    """The quick fix deletes exactly the issue's range; it must be that comma."""
    for scan in (nullcontext(), token_by_token()):
        with scan:
            doc = parse('{"name": "d", "nodes": [' + text)
        for issue in doc.errors:
            if issue.msg == "Trailing comma":
                assert doc.text[issue.start : issue.end] == ","
                assert doc.text[issue.end :].lstrip(" ")[:1] in ("]", "}")


# --- a depth cap: absurd nesting is one clear issue, fast --------------------------

# (text, offset where the cut is reported)
TOO_DEEP = [
    ("[" * (MAX_DEPTH + 1), MAX_DEPTH),
    ("[" * 10**6 + "]" * 10**6, MAX_DEPTH),
    ('{"a":' * 10**6, 5 * MAX_DEPTH),
    ('{"name": "d", "nodes": ' + "[" * 10**5, 23 + MAX_DEPTH - 1),
    # a prompt too deep for json.loads and its C scanner: token by token, then cut
    ('{"name": "d", "nodes": [{"id": "a", "prompt": ' + "[" * 2000 + "]" * 2000 + "}]}",
     46 + MAX_DEPTH - 3),
]


@pytest.mark.parametrize(("text", "cut"), TOO_DEEP, ids=["just-over", "balanced-1e6",
                                                          "objects-1e6", "design", "prompt"])
def test_nesting_deeper_than_the_cap_is_one_issue(text: str, cut: int) -> None:
    doc = parse(text)
    assert [(i.msg, i.start, i.end) for i in doc.errors if i.msg == DEPTH_MESSAGE] == \
        [(DEPTH_MESSAGE, cut, len(text))]
    assert doc.errors[-1].msg == DEPTH_MESSAGE  # nothing after the cut is reported
    json.dumps(doc.to_python())  # shallow enough for recursive consumers
    depth, node = 0, doc.root
    while node is not None:
        depth += 1
        children = (node.items or []) + [m.value for m in node.members or []]
        node = children[-1] if children else None
    assert depth <= MAX_DEPTH


def test_nesting_json_loads_reads_is_never_cut() -> None:
    text = "[" * (MAX_DEPTH + 100) + "]" * (MAX_DEPTH + 100)
    json.loads(text)  # below the interpreter's limit: the engine reads it, so do we
    assert parse(text).errors == []


def test_a_too_deep_design_is_invalid_with_a_clear_message() -> None:
    from hwf_lsp.analysis.findings import check_text

    text = ('{"name": "d", "nodes": [{"id": "t", "type": "trigger"}, {"id": "a", '
            '"type": "note", "text": "x", "extra": ' + "[" * 10**5)
    _, findings = check_text(text)
    assert findings[0].rule == "json-syntax" and findings[0].msg == DEPTH_MESSAGE


# --- queries -------------------------------------------------------------------

DESIGN = """{
  "name": "demo",
  "nodes": [
    {"id": "t", "type": "trigger"},
    {"id": "a", "type": "agent", "prompt": "x\\ny", "after": ["t"], "retries": 1}
  ]
}"""


@pytest.mark.parametrize("text", [DESIGN, DESIGN + "\n]"], ids=["valid", "recovered"])
def test_paths_and_members(text: str) -> None:
    doc = parse(text)
    retries = tree.last_member(doc.node_at_path(("nodes", 1)), "retries")
    assert isinstance(retries, Member)
    assert text[retries.key_start : retries.key_end] == '"retries"'
    assert text[retries.colon] == ":"
    assert doc.node_at_path(("nodes", 1, "after", 0)).value == "t"
    assert doc.node_at_path(("nodes", 5)) is None
    assert doc.node_at_path(("nodes", "x")) is None
    after0 = doc.node_at_path(("nodes", 1, "after", 0))
    assert path_of(after0) == ("nodes", 1, "after", 0)
    assert path_of(retries) == ("nodes", 1, "retries")


@pytest.mark.parametrize("text", [DESIGN, DESIGN + "\n]"], ids=["valid", "recovered"])
def test_path_to_offset(text: str) -> None:
    doc = parse(text)
    inside_after = text.index('"t"]') + 1
    chain = doc.path_to_offset(inside_after)
    assert [path_of(step) for step in chain] == [
        (), ("nodes",), ("nodes",), ("nodes", 1), ("nodes", 1, "after"),
        ("nodes", 1, "after"), ("nodes", 1, "after", 0),
    ]
    assert isinstance(chain[-1], JsonNode) and chain[-1].value == "t"
    on_key = doc.path_to_offset(text.index('"retries"') + 2)
    assert isinstance(on_key[-1], Member) and on_key[-1].key == "retries"
    assert doc.path_to_offset(0) == []  # before the opening brace
    assert doc.path_to_offset(len(text) + 5) == []


def test_contains_edges() -> None:
    doc = parse('[12, "ab", {}]')
    number, string, obj = doc.root.items
    assert contains(number, 1) and contains(number, 3)  # touching a number counts
    assert not contains(string, 5) and contains(string, 6) and not contains(string, 9)
    assert not contains(obj, 11) and contains(obj, 12)


def test_path_to_offset_after_a_half_typed_key() -> None:
    text = '{"nodes": [{"id": "a", "ty'
    chain = parse(text).path_to_offset(len(text))
    assert isinstance(chain[-1], Member) and chain[-1].key == "ty"


def test_duplicate_keys_lists_the_losers() -> None:
    text = '{"a": 1, "b": {"x": 1, "x": 2, "x": 3}, "a": 2}'
    for doc in (parse(text), parse(text + " ]")):
        losers = [(m.key, m.key_start) for m in doc.duplicate_keys()]
        assert losers == [("a", 1), ("x", 15), ("x", 23)]
    assert parse('{"a": {"a": 1}}').duplicate_keys() == []
    broken = parse('{"a": 1, "a": 2, "b": [1,}')  # repeats inside the object being repaired
    assert [(m.key, m.key_start) for m in broken.duplicate_keys()] == [("a", 1)]


SOURCE_OFFSET_CASES = [
    # (string literal, decoded index, expected offset inside the literal)
    ('"abc"', 0, 1),
    ('"abc"', 3, 4),
    ('"a\\nb"', 2, 4),
    ('"\\u00e9x"', 1, 7),
    ('"\\ud83d\\ude00x"', 1, 13),  # one decoded character for the escaped pair
    ('"\\ud83d\\ude00x"', 2, 14),
    ('"😀x"', 1, 2),
    ('"a\\\\b"', 2, 4),
    ('"abc"', 99, 4),
]


@pytest.mark.parametrize(("literal", "index", "expected"), SOURCE_OFFSET_CASES)
def test_source_offset(literal: str, index: int, expected: int) -> None:
    node = parse(literal).root
    assert source_offset(literal, node, index) == expected


@given(st.text(max_size=30), st.booleans())
@settings(max_examples=300, deadline=None)
def test_source_offset_maps_every_decoded_index(value: str, ascii_only: bool) -> None:
    literal = json.dumps(value, ensure_ascii=ascii_only)
    if json.loads(literal) != value:
        return  # a raw high+low surrogate pair re-reads as one character
    node = parse(literal).root
    for index in range(len(value) + 1):
        offset = source_offset(literal, node, index)
        assert json.loads(literal[:offset] + '"') == value[:index]


def one_escape_at_a_time(text: str, node: JsonNode, index: int) -> int:
    """source_offset without its shortcut to the end: the reference it must agree with."""
    body_start, body_end = node.start + 1, node.end - 1 if node.closed else node.end
    raw, decoded, pos = text[body_start:body_end], 0, 0
    escape = re.compile(r'\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt])|(.?))', re.S)
    while pos < len(raw) and decoded < index:
        if raw[pos] != "\\":
            backslash = raw.find("\\", pos)
            take = min((len(raw) if backslash < 0 else backslash) - pos, index - decoded)
            pos, decoded = pos + take, decoded + take
            continue
        esc = escape.match(raw, pos)
        pos = esc.end()
        if esc.group(1) is not None and 0xD800 <= int(esc.group(1), 16) <= 0xDBFF:
            pair = escape.match(raw, pos)
            if pair is not None and pair.group(1) is not None and \
                    0xDC00 <= int(pair.group(1), 16) <= 0xDFFF:
                pos = pair.end()
        decoded += 1
    return body_start + pos


@given(st.text(alphabet='\\udcDC089aAbfnx"/ é', max_size=40),
       st.integers(min_value=0, max_value=45))
@settings(max_examples=500, deadline=None)
def test_source_offset_of_any_string_the_parse_finds(body: str, index: int) -> None:
    """Broken escapes, lone surrogates, unclosed strings: every string node of `["body"`
    (the tolerant parse's too) is located as one escape at a time would."""
    text = '["' + body + '"'
    for node in parse(text).root.items or []:
        if node.kind == "string":
            assert source_offset(text, node, index) == one_escape_at_a_time(text, node, index)


def test_the_end_of_a_megabyte_of_escapes_is_found_at_once() -> None:
    """The end of a closed string is its closing quote: no walk through the escapes (1.3 s
    for a megabyte, one escape at a time), so ten times the text takes no longer."""
    def string_of(n: int) -> tuple[str, JsonNode, int]:
        text = json.dumps("\x00" * n)
        return text, parse(text).root, n

    def end_of(made: tuple[str, JsonNode, int]) -> int:
        return source_offset(*made)

    made = string_of(1_000_000)
    assert end_of(made) == len(made[0]) - 1
    ratio, times = growth(string_of, end_of, 100_000)
    assert ratio < CONSTANT, times


# --- never fails, never recurses ---------------------------------------------------

# (text, CPU-second budget, offset to look up).  The brief's target is 10^6 levels in
# < 2 s; with the depth cap it is ~10 ms idle (2.0-2.2 s before the cap).  The
# budgets leave room for a busy machine.
DEEP = [
    ("[" * 10**6, 0.5, None),
    ("[" * 10**6 + "]" * 10**6, 0.5, 10**6 - 1),
    ('{"a":' * 10**6, 0.5, None),
    ('[{"a": ' * 200_000, 0.5, 700_000),
]


@pytest.mark.parametrize(("text", "budget", "offset"), DEEP,
                         ids=["open", "balanced", "object", "mixed"])
def test_deep_nesting_is_fine(text: str, budget: float, offset: int | None) -> None:
    started = time.process_time()
    doc = parse(text)
    assert doc.root is not None
    doc.to_python()
    assert time.process_time() - started < budget
    if offset is not None:  # the chain to a deep offset ends at the cap
        assert MAX_DEPTH <= len(doc.path_to_offset(offset)) <= 2 * MAX_DEPTH


JSONISH = st.text(
    alphabet=st.sampled_from(list('{}[]:,"\\ \n\r\tatrufnl0123456789.-eE/') +
                             ["\ud800", "😀", "\ufeff", "é", "\x00"]),
    max_size=80,
)


@given(st.one_of(JSONISH, st.text(max_size=40)), st.booleans())
@settings(max_examples=400, deadline=None)
def test_parse_never_fails(text: str, scan: bool) -> None:
    with nullcontext() if scan else token_by_token():
        doc = parse(text)
    doc.to_python()
    check_tree(doc)
    for issue in doc.errors:
        assert 0 <= issue.start <= issue.end <= len(text)
    for offset in range(0, len(text) + 1, 7):
        doc.path_to_offset(offset)
    doc.duplicate_keys()


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=4),
    max_leaves=25,
)


@given(JSON_VALUES, st.sampled_from([None, 0, 2, "\t"]), st.booleans(),
       st.sampled_from([(",", ":"), (", ", ": "), (" ,", " : ")]))
@settings(max_examples=300, deadline=None)
def test_valid_json_round_trips(value: object, indent: object, ascii_only: bool,
                                separators: tuple[str, str]) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only, separators=separators)
    doc = parse(text)
    assert doc.errors == []
    assert doc.to_python() == json.loads(text)
    # The lazy tree of valid JSON equals the trees the recovering parser builds,
    # with the C scan of nested containers and token by token.
    for context in (nullcontext(), token_by_token()):
        with context:
            recovered = parse(text + "\n}")
            assert [i.msg for i in recovered.errors] == ["End of file expected"]
            assert recovered.to_python() == doc.to_python()
            same_tree(doc.root, recovered.root, text)


# --- an array of objects: its items' spans from the boundaries between them ---

PLAIN_OBJECT = st.dictionaries(
    st.sampled_from(["id", "after", "text"]),
    st.one_of(st.integers(), st.text(max_size=6), st.lists(st.text(max_size=3), max_size=2)),
    max_size=3)
TRICKY_VALUE = st.sampled_from(["}, {", "},{", "}\n  ,\n  {", '"}, {"', "\\", "{", "}",
                                [{"k": 1}, {"k": 2}], [{}, {}], {"nested": {}}])


@given(st.lists(PLAIN_OBJECT, min_size=1, max_size=70),
       st.lists(st.tuples(st.integers(0, 69), TRICKY_VALUE), max_size=2),
       st.sampled_from([None, 0, 2]), st.sampled_from([(",", ":"), (", ", ": ")]))
@settings(max_examples=60, deadline=None)
def test_an_array_of_objects_has_the_items_token_by_token_finds(
        nodes: list[dict], tricky: list[tuple[int, object]], indent: object,
        separators: tuple[str, str]) -> None:
    """A string holding `}, {`, or objects nested in an item, make more boundaries than
    items: those arrays are scanned item by item.  Either way the tree is the one built
    token by token."""
    for index, value in tricky:
        index %= len(nodes)
        nodes[index] = {**nodes[index], "tricky": value}
    text = json.dumps({"nodes": nodes}, indent=indent, separators=separators)
    doc = parse(text)
    with token_by_token():
        recovered = parse(text + "\n}")
        same_tree(doc.root, recovered.root, text)


@pytest.mark.parametrize(("items", "by_boundaries"), [
    ([{"id": f"n{i}", "after": [f"n{i - 1}"]} for i in range(50)], True),
    ([{}] * 3, True),
    ([{"id": "n0"}], True),
    ([{"id": "n0", "text": "a }, { b"}] + [{}] * 2, False),   # a boundary inside a string
    ([{"options": [{"a": 1}, {"b": 2}]}] + [{}] * 2, False),  # one between nested objects
], ids=["design", "empty objects", "one object", "in a string", "nested"])
def test_which_arrays_find_their_items_by_boundaries(items: list[dict],
                                                     by_boundaries: bool) -> None:
    text = json.dumps(items, indent=2)
    doc = parse(text)
    first, last_end = text.index("{"), text.rindex("}") + 1
    found = fast_path._object_items(doc.root, text, first, last_end, items)
    assert (found is not None) == by_boundaries
    assert [(item.start, item.end) for item in doc.root.items] == \
        [(item.start, item.end) for item in parse(text + " ]").root.items]


def test_every_prefix_of_a_design_parses() -> None:
    text = DESIGN.replace("\n", "\r\n") + " \ufeff😀"
    for end in range(len(text) + 1):
        doc = parse(text[:end])
        doc.to_python()
        check_tree(doc)


@given(JSON_VALUES, st.sampled_from([None, 1]), st.data())
@settings(max_examples=300, deadline=None)
def test_scanning_valid_parts_changes_nothing(value: object, indent: object,
                                              data: st.DataObject) -> None:
    """Damaged JSON: the C scan of intact containers gives what token-by-token gives."""
    damaged = json.dumps(value, indent=indent)
    for _ in range(data.draw(st.integers(1, 3))):
        cut = data.draw(st.integers(0, len(damaged)))
        damage = data.draw(st.sampled_from(["", '"', ",", "}", "]", "x", "{", ":", "[", "\n",
                                            '"a":', "\\"]))
        damaged = damaged[:cut] + damage + damaged[cut + data.draw(st.integers(0, 2)):]
    scanned = parse(damaged)
    with token_by_token():
        tokens = parse(damaged)
    assert scanned.to_python() == tokens.to_python()
    assert scanned.errors == tokens.errors
    assert [(m.key, m.key_start) for m in scanned.duplicate_keys()] == \
        [(m.key, m.key_start) for m in tokens.duplicate_keys()]
    if scanned.root is not None:
        same_tree(scanned.root, tokens.root, damaged, valid=False)


@pytest.mark.parametrize("damaged", [
    '{"nodes": [{"id": "a"}, {"id": "b"} x, {"id": "c"}, [1, 2], {"id": "d"}]}',
    '{"nodes": [{"id": "a"},\n {"id": "b"x}, {"id": "c"} ,\n{"id": "d"}, 7, {"e": [1]}]}',
    '[[1], [2, [3]], [4 5], [6], {"a": 1}, {"a": 1, "a": 2}]',
    '[{"a": 1}, , {"b": 2}, {"c": 3},]',
    '[{"a": 1}, {"b": 2} {"c": 3}, {"d": 4}',
    '{"nodes": [{"id": "a", "after": []}, {"id": "b"}], "n": [1, [2]], "x": tru}',
], ids=["after-an-item", "inside-an-item", "arrays", "empty-slot", "unclosed", "after-the-arrays"])
def test_valid_items_around_an_error_are_scanned_as_tokens_would_read_them(damaged: str) -> None:
    """The items after a valid item of an array are placed in one go (`_valid_items`), and
    an array opened before the first error is read item by item: the same tree, value and
    issues as token by token."""
    scanned = parse(damaged)
    with token_by_token():
        tokens = parse(damaged)
    assert scanned.errors and scanned.errors == tokens.errors
    assert scanned.to_python() == tokens.to_python()
    same_tree(scanned.root, tokens.root, damaged, valid=False)


def _spans(member):
    if member is None:
        return None
    value = member.value
    return (member.key, member.key_start, member.key_end, member.colon, value.kind, value.start,
            value.end, value.value if value.kind not in ("object", "array") else None)


@given(st.dictionaries(st.text(max_size=4), JSON_VALUES, max_size=6), st.sampled_from([None, 2]),
       st.booleans())
@settings(max_examples=300, deadline=None)
def test_peek_member_finds_what_members_has(value: dict, indent: object, damaged: bool) -> None:
    """`peek_member` on a lazily scanned object (valid text, or an intact item beside an
    error) gives the offsets of the member `members` builds, and None for an absent key."""
    text = '{"nodes": [' + json.dumps(value, indent=indent) + (", x" if damaged else "") + "]}"
    built = parse(text).node_at_path(("nodes", 0))
    peeked = parse(text).node_at_path(("nodes", 0))
    assert peeked._source is not None  # still lazy: peek_member must not build it
    for key in [*value, "absent", ""]:
        assert _spans(peek_member(peeked, key)) == _spans(tree.last_member(built, key))
    assert peeked._source is not None


def test_peek_member_of_an_object_with_duplicate_keys_is_the_last() -> None:
    doc = parse('{"nodes": [{"id": "a", "id": "b", "x": 1}]}')
    member = peek_member(doc.node_at_path(("nodes", 0)), "id")
    assert (member.value.value, member.key_start) == ("b", 23)


@pytest.mark.parametrize("suffix", ["", " ]"], ids=["valid", "recovered"])
def test_a_dropped_tree_is_freed_without_the_garbage_collector(suffix: str) -> None:
    """Upward links are weak: no reference cycles, so replacing a document frees it at once."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        doc = parse(DESIGN + suffix)
        check_tree(doc)  # builds every node
        leaf = doc.node_at_path(("nodes", 1, "after", 0))
        assert path_of(leaf) == ("nodes", 1, "after", 0)
        probe = weakref.ref(leaf)
        del doc, leaf
        assert probe() is None
    finally:
        if collecting:
            gc.enable()


# --- lazily built nodes ---------------------------------------------------------------


def test_a_lazy_object_sets_every_slot_a_node_has() -> None:
    """`lazy_container` skips `__init__`: a slot it forgot would raise on first read."""
    node = fast_path.lazy_container("object", 3, 9, '{"a": 1}', {"a": 1}, None)
    made = JsonNode("object", 3, 9)
    for slot in (*JsonNode.__slots__, *fast_path.LazyNode.__slots__):
        if slot != "__weakref__":
            assert hasattr(node, slot), slot
            if slot not in ("_source", "_py"):
                assert getattr(node, slot) == getattr(made, slot), slot


@pytest.mark.parametrize("damaged", [
    '[{},[[{"": null}]]',   # a `[` typed before a node in an intact-looking array
    '[{}, [[{"": null}]]',
    '[{}, []{"": null}]]',  # a `]` typed before a node
])
def test_a_stray_bracket_reads_the_same_scanned_or_token_by_token(damaged: str) -> None:
    """Found by the property above: a container valid as a whole may hold (or end with) a
    bracket the token-by-token reading calls stray; both readings must agree."""
    scanned = parse(damaged)
    with token_by_token():
        tokens = parse(damaged)
    assert (scanned.to_python(), scanned.errors) == (tokens.to_python(), tokens.errors)
