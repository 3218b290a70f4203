"""The schema agrees with the rulebook, spot for spot, on more than 200 designs.

Two properties, checked on every design of the corpus (the examples, seeded valid
designs, every mutation on the base design, one random mutation of each valid
design, and Hypothesis-generated nodes):

1. Every schema error sits where the rulebook reports a defect (same node index and
   field).  In particular every design the rulebook accepts, the schema accepts.
2. Every rulebook defect JSON Schema can express (kind, required payload, type,
   range, enum, list shape, the condition grammar's pattern) is a schema error at
   the same spot.

What the schema cannot express (duplicate ids, edges to real nodes, cycles, one
trigger, which node a condition reads) is counted, and the mutations that
introduce only such a defect must pass the schema: that is the language server's
job, and the counts show how much of it there is.

Every design is also checked with a draft-7 validator, and (when bench/peer has it)
with VS Code's own engine, which must flag the same nodes as Python's jsonschema.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft7Validator, Draft202012Validator
from schema_corpus import (
    MUTATIONS,
    REPO,
    base_design,
    example_designs,
    mutate,
    valid_design,
)
from vscode_engine import needs_vscode_engine, run_vscode_engine

from hwf_lsp.generators import design_schema
from hwf_lsp.rules import vocabulary as vocab
from hwf_lsp.rules.defects import Defect
from hwf_lsp.rules.validator import collect_defects, validate_designer_graph

SCHEMA = json.loads((REPO / design_schema.SCHEMA_PATH).read_text(encoding="utf-8"))
"""The committed file, as users get it (tests/test_generated_files.py checks it is the generated one)."""
VALIDATOR = Draft202012Validator(SCHEMA)
DRAFT7 = Draft7Validator(SCHEMA)
CONDITION_RE = re.compile(design_schema.condition_pattern())
SEED = 20261130
VALID_DESIGNS = 240

Spot = tuple[int | None, str | None]
"""(node index, field): where a defect or a schema error is."""


# --- locating defects and schema errors ------------------------------------------


def _blank(value: Any) -> bool:
    return isinstance(value, str) and not value.strip()


def expressible(defect: Defect, design: Any) -> bool:
    """Whether JSON Schema can express `defect` (so the schema must report it too)."""
    if defect.rule in ("graph-shape", "known-kind", "required-payload", "retries", "deadline",
                       "delivery", "note-color", "field-type"):
        return True
    if defect.rule in ("one-trigger", "acyclic"):
        return False
    node = design["nodes"][defect.index]
    if defect.rule == "identity":  # missing, not a string, blank: yes; duplicate: no
        ident = node.get("id")
        return not isinstance(ident, str) or _blank(ident)
    if defect.rule == "edges":
        if defect.element is None:
            return True  # after is not a list
        parent = node["after"][defect.element]
        return not isinstance(parent, str) or _blank(parent)
    if defect.rule == "condition":  # grammar, as far as the pattern approximates it
        text = node["expression"]
        return len(text) > vocab.MAX_EXPRESSION_LENGTH or not CONDITION_RE.search(text)
    raise AssertionError(f"unclassified rule {defect.rule}")


def error_spot(error: Any) -> Spot:
    """The (node index, field) a jsonschema error is about."""
    path = list(error.absolute_path)
    if not path:
        return (None, "nodes" if error.validator == "required" else None)
    if len(path) == 1:
        return (None, "nodes")
    index = path[1]
    if len(path) >= 3:
        return (index, path[2])
    if error.validator == "required":
        missing = [name for name in error.validator_value if name not in error.instance]
        return (index, missing[0])
    return (index, None)


def schema_spots(design: Any) -> set[Spot]:
    return {error_spot(e) for e in VALIDATOR.iter_errors(design)}


# --- one design's verdicts ---------------------------------------------------------


@dataclass(slots=True)
class Verdict:
    source: str
    design: Any
    defects: list[Defect]
    schema: set[Spot]
    must_catch: set[Spot]
    beyond_schema: list[Defect]
    problems: list[str] = field(default_factory=list)


def judge(source: str, design: Any) -> Verdict:
    """Both verdicts on `design`, with every disagreement listed in `problems`."""
    defects = collect_defects(design)
    assert validate_designer_graph(design) == [d.as_dict() for d in defects]
    schema = schema_spots(design)
    draft7_agrees = DRAFT7.is_valid(design) == (not schema)
    shape = [d for d in defects if d.rule == "graph-shape" and d.index is None]
    if shape:  # the rulebook short-circuits: it reports the shape and nothing else
        must = {(None, shape[0].field)}
        verdict = Verdict(source, design, defects, schema, must, [])
        if not schema & {(None, None), (None, "nodes")}:
            verdict.problems.append(f"{source}: shape defect {shape[0].msg!r} not in schema")
        if not draft7_agrees:
            verdict.problems.append(f"{source}: draft 7 and 2020-12 validators disagree")
        return verdict
    rulebook = {(d.index, d.field) for d in defects}
    must = {(d.index, d.field) for d in defects if expressible(d, design)}
    beyond = [d for d in defects if not expressible(d, design)]
    verdict = Verdict(source, design, defects, schema, must, beyond)
    for spot in sorted(schema - rulebook, key=str):
        verdict.problems.append(f"{source}: schema error at {spot}, rulebook has none there")
    for spot in sorted(must - schema, key=str):
        verdict.problems.append(f"{source}: rulebook defect at {spot} missed by the schema")
    if not draft7_agrees:
        verdict.problems.append(f"{source}: draft 7 and 2020-12 validators disagree")
    return verdict


@dataclass(slots=True)
class Corpus:
    examples: list[Verdict]
    generated: list[Verdict]
    table: list[tuple[Any, Verdict]]
    random_mutations: list[tuple[Any, Verdict]]

    def all(self) -> list[Verdict]:
        return (self.examples + self.generated + [v for _, v in self.table]
                + [v for _, v in self.random_mutations])


HYPOTHESIS_COUNTS: Counter = Counter()


@pytest.fixture(scope="module")
def corpus() -> Corpus:
    rng = random.Random(SEED)
    examples = [judge(path, design) for path, design in example_designs()]
    valid = [valid_design(rng) for _ in range(VALID_DESIGNS)]
    generated = [judge(f"generated[{i}]", d) for i, d in enumerate(valid)]
    table = []
    for mutation in MUTATIONS:
        mutated = mutate(base_design(), mutation, rng)
        assert mutated is not None, f"{mutation.name} does not apply to the base design"
        table.append((mutation, judge(f"mutation {mutation.name!r}", mutated)))
    random_mutations = []
    for i, design in enumerate(valid):
        for _attempt in range(5):
            mutation = rng.choice(MUTATIONS)
            mutated = mutate(design, mutation, rng)
            if mutated is not None:
                verdict = judge(f"generated[{i}] + {mutation.name!r}", mutated)
                random_mutations.append((mutation, verdict))
                break
    return Corpus(examples, generated, table, random_mutations)


def _report(problems: list[str]) -> str:
    return f"{len(problems)} disagreements, first ones:\n" + "\n".join(problems[:15])


# --- the properties ------------------------------------------------------------------


def test_examples_are_judged_alike(corpus: Corpus) -> None:
    assert corpus.examples, "examples/ has no design"
    problems = [p for v in corpus.examples for p in v.problems]
    assert not problems, _report(problems)
    for verdict in corpus.examples:
        if not verdict.defects:
            assert not verdict.schema, f"{verdict.source}: the rulebook accepts it"
        if "broken" in verdict.source:
            assert verdict.defects, f"{verdict.source} is meant to be broken"
            assert verdict.schema, f"{verdict.source} has per-field defects the schema sees"


def test_generated_designs_are_valid_for_both(corpus: Corpus) -> None:
    invalid = [f"{v.source}: {v.defects[0].msg}" for v in corpus.generated if v.defects]
    assert not invalid, "the generator must build rulebook-valid designs:\n" + "\n".join(invalid)
    rejected = [v.source for v in corpus.generated if v.schema]
    assert not rejected, f"the schema rejects rulebook-valid designs: {rejected[:10]}"


def test_every_rule_has_a_mutation() -> None:
    assert {m.rule for m in MUTATIONS} == set(vocab.RULES)


@pytest.mark.parametrize("index", range(len(MUTATIONS)), ids=[m.name for m in MUTATIONS])
def test_mutation_breaks_its_rule_and_the_schema_agrees(corpus: Corpus, index: int) -> None:
    mutation, verdict = corpus.table[index]
    assert mutation.rule in {d.rule for d in verdict.defects}, (
        f"{mutation.name} did not break {mutation.rule}: {verdict.defects}")
    assert not verdict.problems, _report(verdict.problems)
    if mutation.expressible:
        assert verdict.schema, f"{mutation.name}: the schema accepts it"
    else:
        assert not verdict.schema, (
            f"{mutation.name} is beyond JSON Schema, yet the schema rejects: {verdict.schema}")


def test_random_mutations_are_judged_alike(corpus: Corpus) -> None:
    assert len(corpus.random_mutations) >= VALID_DESIGNS * 0.9
    problems = [p for _, v in corpus.random_mutations for p in v.problems]
    assert not problems, _report(problems)
    for mutation, verdict in corpus.random_mutations:
        assert verdict.defects, f"{verdict.source}: the mutation broke nothing"
        if mutation.expressible:
            assert verdict.schema, f"{verdict.source}: the schema accepts it"


# --- arbitrary field values (Hypothesis) -----------------------------------------------

_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-2, max_value=5000),
    st.sampled_from([0.0, 1.0, 2.5, 3.0, 4320.0, 4320.5, float("inf"), float("nan"), 1e300]),
    st.text(max_size=6),
    st.sampled_from(["", " ", "\u00a0", ":", "slack:#x", "channel", "notification", "reject",
                     "escalate", "yellow", "red", "", "agent", "start", "fetch",
                     "out.fetch.n == 1", "out.start.n == 1", "out.fetch.n", "out.memo.x < 2",
                     "out.fetch.0 >= -1.5e3", 'out.fetch.s != "a\\"b"']),
    st.lists(st.one_of(st.sampled_from(["start", "fetch", "memo", "", " ", "a", "a"]),
                       st.integers(0, 2), st.none()), max_size=3),
    st.just({}),
)
_FIELDS = sorted(vocab.ALL_FIELD_NAMES - {"id"}) + ["id", "x-unknown"]


@st.composite
def random_node(draw: Any) -> dict[str, Any]:
    kind = draw(st.sampled_from(vocab.KINDS + ("robot",)))
    node: dict[str, Any] = {"id": draw(st.sampled_from(["n", "", " ", "fetch", "start"]))}
    if draw(st.booleans()) or kind != "robot":
        node["type"] = kind
    for name in draw(st.lists(st.sampled_from(_FIELDS), max_size=6, unique=True)):
        node[name] = draw(_VALUES)
    return node


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(random_node(), min_size=1, max_size=3))
def test_arbitrary_nodes_are_judged_alike(extra: list[dict[str, Any]]) -> None:
    design = base_design()
    design["nodes"].extend(extra)
    verdict = judge("hypothesis", design)
    HYPOTHESIS_COUNTS["designs"] += 1
    HYPOTHESIS_COUNTS["rejected by the rulebook"] += bool(verdict.defects)
    HYPOTHESIS_COUNTS["rejected by the schema"] += bool(verdict.schema)
    HYPOTHESIS_COUNTS["expressible spots caught by both"] += len(verdict.must_catch)
    HYPOTHESIS_COUNTS["defects beyond the schema"] += len(verdict.beyond_schema)
    assert not verdict.problems, _report(verdict.problems)


# --- VS Code's own engine -------------------------------------------------------------

VSCODE_COUNTS: Counter = Counter()


def _node_index(path: list) -> int | None:
    """The node a JSON path is inside, or None for the design as a whole."""
    return path[1] if len(path) >= 2 and path[0] == "nodes" else None


@needs_vscode_engine
def test_vscode_engine_agrees_with_python(corpus: Corpus) -> None:
    """VS Code's JSON engine (also inside vscode-json-languageserver) reaches the same
    verdict as Python's jsonschema, on the same nodes, for every design of the corpus."""
    verdicts = corpus.all()
    texts = [json.dumps(v.design, indent=2, ensure_ascii=False) for v in verdicts]
    diagnostics = run_vscode_engine({"schema": SCHEMA, "documents": texts})["diagnostics"]
    problems = []
    for verdict, found in zip(verdicts, diagnostics, strict=True):
        in_vscode = {_node_index(path) for path, _msg in found}
        in_python = {index for index, _field in verdict.schema}
        if in_vscode != in_python:
            problems.append(f"{verdict.source}: VS Code {sorted(found, key=str)[:3]}, "
                            f"jsonschema at nodes {sorted(in_python, key=str)}")
        VSCODE_COUNTS["designs"] += 1
        VSCODE_COUNTS["rejected"] += bool(found)
    assert not problems, _report(problems)


# --- the counts --------------------------------------------------------------------------


def test_print_counts(corpus: Corpus, capsys: pytest.CaptureFixture[str]) -> None:
    """Print the corpus counts whatever `-s` says (the report quotes them)."""
    everything = corpus.all()
    accepted = [v for v in everything if not v.defects]
    must = sum(len(v.must_catch) for v in everything)
    beyond = Counter(d.rule for v in everything for d in v.beyond_schema)
    table_expr = sum(m.expressible for m, _ in corpus.table)
    lines = [
        "schema agreement corpus:",
        f"  examples: {len(corpus.examples)} ({sum(not v.defects for v in corpus.examples)} "
        "valid)",
        f"  generated valid designs: {len(corpus.generated)}",
        f"  mutation table: {len(corpus.table)} ({table_expr} expressible, "
        f"{len(corpus.table) - table_expr} beyond JSON Schema) over {len(vocab.RULES)} rules",
        f"  random mutations of generated designs: {len(corpus.random_mutations)}",
        f"  total designs: {len(everything)}; rulebook accepts {len(accepted)}, schema "
        f"accepts all of them: {all(not v.schema for v in accepted)}",
        f"  expressible defect spots caught by both: {must}",
        f"  defects beyond JSON Schema (rulebook only): {dict(sorted(beyond.items()))}",
        f"  hypothesis: {dict(HYPOTHESIS_COUNTS)}",
        f"  VS Code engine (vscode-json-languageservice), same verdicts: {dict(VSCODE_COUNTS)}",
    ]
    with capsys.disabled():
        print("\n" + "\n".join(lines))
    assert len(everything) >= 200
    assert not [p for v in everything for p in v.problems]
