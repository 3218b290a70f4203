"""The committed schema: valid 2020-12, documented, and its patterns sound (that it is the
generator's output: tests/test_generated_files.py)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft7Validator, Draft202012Validator
from schema_corpus import REPO
from vscode_engine import needs_vscode_engine, run_vscode_engine

from hwf_lsp.generators import design_schema
from hwf_lsp.rules import vocabulary as vocab
from hwf_lsp.rules.conditions import ConditionError, parse_condition
from hwf_lsp.rules.validator import validate_designer_graph

SCHEMA_FILE = REPO / design_schema.SCHEMA_PATH
SCHEMA = design_schema.build_schema()
VALIDATOR = Draft202012Validator(SCHEMA)
CONDITION_RE = re.compile(design_schema.condition_pattern())


def test_schema_is_valid_against_the_metaschemas() -> None:
    on_disk = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(on_disk)
    Draft7Validator.check_schema(on_disk)  # the draft-7-compatible subset, for older tools
    assert on_disk["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert on_disk["$id"] == "https://hermes-workflow.dev/schema/hermes-workflow-design.schema.json"


def _field_schemas() -> list[tuple[str, vocab.Field, dict[str, Any]]]:
    """(kind, field, its schema) for every field the rulebook checks by kind."""
    rows = []
    for kind in vocab.KINDS:
        kind_props = SCHEMA["$defs"][kind].get("properties", {})
        for field in vocab.fields_for(kind):
            where = SCHEMA["$defs"]["node"]["properties"] if field.name in \
                design_schema.ALWAYS_CHECKED else kind_props
            rows.append((kind, field, where[field.name]))
    return rows


@pytest.mark.parametrize("kind,field,schema", _field_schemas(),
                         ids=[f"{k}.{f.name}" for k, f, _ in _field_schemas()])
def test_every_field_is_documented_and_constrained(kind: str, field: vocab.Field,
                                                   schema: dict[str, Any]) -> None:
    assert schema["title"] == field.name
    assert schema["markdownDescription"] == field.doc
    assert schema["description"] == field.doc.replace("`", "")
    # A whole number is a number that is a multiple of 1 (see design_schema: VS Code's
    # "integer" rejects 2.0, which the rulebook accepts).
    expected_type = {"string": "string", "integer": "number", "enum": "string",
                     "id-list": "array", "string-list": "array"}[field.type]
    assert schema["type"] == expected_type
    if field.type == "integer":
        assert schema["multipleOf"] == 1
    if field.enum:
        assert schema["enum"] == list(field.enum)
    if field.minimum is not None:
        assert (schema["minimum"], schema["maximum"]) == (field.minimum, field.maximum)
    if field.default is not None:
        assert schema["default"] == field.default


@pytest.mark.parametrize("kind", vocab.KINDS)
def test_required_payloads_per_kind(kind: str) -> None:
    required = [f.name for f in vocab.required_payloads(kind)]
    assert SCHEMA["$defs"][kind].get("required", []) == required
    branch = next(b for b in SCHEMA["$defs"]["node"]["allOf"]
                  if b["if"]["properties"]["type"]["const"] == kind)
    assert branch["then"] == {"$ref": f"#/$defs/{kind}"}


def _resolve_snippet(value: Any, parent: str, in_list: bool = False) -> Any:
    """A snippet body with its tab stops filled in: the defaults; a bare stop is `parent`
    inside a list (an `after`) and empty elsewhere."""
    if isinstance(value, dict):
        return {k: _resolve_snippet(v, parent) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve_snippet(v, parent, in_list=True) for v in value]
    if isinstance(value, str):
        if re.fullmatch(r"\$\d+", value):
            return parent if in_list else ""
        return re.sub(r"\$\{\d+:([^}]*)\}", r"\1", value)
    return value


@pytest.mark.parametrize("kind", vocab.KINDS)
def test_node_snippet_makes_a_valid_node(kind: str) -> None:
    snippets = {s["body"]["type"]: s for s in SCHEMA["$defs"]["node"]["defaultSnippets"]}
    assert set(snippets) == set(vocab.KINDS)
    body = _resolve_snippet(snippets[kind]["body"], parent="node")
    trigger = body if kind == vocab.TRIGGER else {"id": "start", "type": "trigger"}
    # The condition snippet's example reads out.node: give it a step called "node".
    nodes = [trigger, {"id": "node", "type": "agent", "prompt": "p", "after": [trigger["id"]]}]
    design = {"name": "snippet", "nodes": nodes + ([] if body is trigger else [body])}
    assert validate_designer_graph(design) == []
    assert VALIDATOR.is_valid(design)


def test_design_snippet_makes_a_valid_design() -> None:
    body = _resolve_snippet(SCHEMA["defaultSnippets"][0]["body"], parent="start")
    assert validate_designer_graph(body) == []
    assert VALIDATOR.is_valid(body)


# --- patterns ------------------------------------------------------------------------

CONDITION_CASES = [
    ("out.a.b == 1", True),
    ("  out.fetch.items.0.status != \"done\"  ", True),
    ("out.a.b<=-1.5e+3", True),
    ("out.a.b >= null", True),
    ('out.a.b == "say \\"hi\\" \\u00e9"', True),
    ("out.a." + ".".join(["k"] * vocab.MAX_PATH_SEGMENTS) + " == 1", True),
    ("out.a." + ".".join(["k"] * (vocab.MAX_PATH_SEGMENTS + 1)) + " == 1", False),
    ("out.a == 1", False),
    ("out.a.b = 1", False),
    ("out.a.b == 'x'", False),
    ("out.a.b == True", False),
    ("out.a.b == 01", False),
    ("out.a.b == 1 2", False),
    ('out.a.b == "unterminated', False),
    ('out.a.b == "bad \\x escape"', False),
    ("out.a b.c == 1", False),
    ("x.a.b == 1", False),
    ("", False),
]


@pytest.mark.parametrize("text,matches", CONDITION_CASES)
def test_condition_pattern_cases(text: str, matches: bool) -> None:
    assert bool(CONDITION_RE.search(text)) is matches
    try:
        parse_condition(text)
        parsed = True
    except ConditionError:
        parsed = False
    assert parsed is matches  # on these cases the pattern and the parser agree exactly


_NAME = st.text("abAB09_-", min_size=1, max_size=4)
_LITERAL = st.one_of(
    st.integers().map(str), st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.text(max_size=5).map(json.dumps), st.sampled_from(["true", "false", "null"]),
)
_GRAMMAR = st.builds(
    lambda sp, node, path, op, lit: f"{sp[0]}out.{node}.{'.'.join(path)}{sp[1]}{op}{sp[2]}{lit}"
    f"{sp[3]}",
    st.tuples(*[st.sampled_from(["", " ", "\t", "\n", "\u00a0"])] * 4), _NAME,
    st.lists(_NAME, min_size=1, max_size=4), st.sampled_from(vocab.CONDITION_OPERATORS), _LITERAL,
)
_NEAR_GRAMMAR = st.one_of(_GRAMMAR, _GRAMMAR.map(lambda t: t[:-1]), _GRAMMAR.map(lambda t: t + "x"),
                          st.text(alphabet="out.ab =<>!\"1e-", max_size=14))


@settings(max_examples=400, deadline=None, derandomize=True)
@given(_NEAR_GRAMMAR)
def test_pattern_accepts_everything_the_parser_accepts(text: str) -> None:
    try:
        parse_condition(text)
    except ConditionError:
        return
    assert CONDITION_RE.search(text), text


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(max_size=4))
def test_non_blank_pattern_is_the_rulebooks_strip(text: str) -> None:
    assert bool(re.search(design_schema.NON_BLANK, text)) == bool(text.strip())


_JS_CHECK = r"""
const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const out = cases.map(([pattern, text]) => new RegExp(pattern, 'u').test(text));
process.stdout.write(JSON.stringify(out));
"""


def _patterns(schema: Any) -> list[str]:
    found, stack = [], [schema]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if isinstance(item.get("pattern"), str):
                found.append(item["pattern"])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return sorted(set(found))


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node for ECMA-262 regexes")
def test_patterns_mean_the_same_in_ecma262() -> None:
    """Editors run patterns as JavaScript regexes ('u' flag); Python must agree, also on
    the whitespace where JavaScript's and Python's `\\s` differ."""
    spaces = ["\ufeff", "\x1c", "\x85", "\u00a0", "\u2028", "\u3000", "\u200b", "\t\n", " "]
    texts = [t for t, _ in CONDITION_CASES] + ["", "a", "slack:#x", "no colon"] + spaces
    texts += [f"out.a.b{space}=={space}1" for space in spaces]
    cases = [(p, t) for p in _patterns(SCHEMA) for t in texts]
    result = subprocess.run(["node", "-e", _JS_CHECK], input=json.dumps(cases),
                            capture_output=True, text=True, timeout=60, check=True)
    in_js = json.loads(result.stdout)
    in_python = [bool(re.search(p, t)) for p, t in cases]
    assert len(_patterns(SCHEMA)) == 3
    assert in_js == in_python


@needs_vscode_engine
def test_vscode_completes_each_kinds_fields_and_snippets() -> None:
    """In VS Code's engine, completion inside a node offers exactly its kind's fields (the
    if/then on `type` works there), and inside `nodes` a snippet per kind."""
    requests = []
    for kind in vocab.KINDS:
        text = f'{{"nodes": [{{"id": "a", "type": "{kind}", }}]}}'
        requests.append([text, text.index(", }") + 2])
    requests.append(['{"nodes": [  ]}', len('{"nodes": [ ')])
    labels = run_vscode_engine({"schema": SCHEMA, "documents": [],
                                "completions": requests})["completions"]
    for kind, offered in zip(vocab.KINDS, labels, strict=False):
        expected = {f.name for f in vocab.fields_for(kind)} - {"id", "type"}
        assert set(offered) == expected, kind
    assert labels[-1] == [f"{kind} node" for kind in vocab.KINDS]
