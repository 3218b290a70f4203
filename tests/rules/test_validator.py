"""The rulebook: every rule of the spec's table, passing and failing, plus purity."""

from __future__ import annotations

import copy
import json
import math
from typing import Any, NamedTuple

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.designs import agent, approval, note, output, trigger
from support.designs import condition as cond
from support.designs import design as sample_design

from hwf_lsp.rules import validator as validator_module
from hwf_lsp.rules.validator import collect_defects, validate_designer_graph
from hwf_lsp.rules.vocabulary import ALL_FIELD_NAMES, KINDS, MAX_NODES, RULES


class D(NamedTuple):
    """An expected defect: the rule, where it is, and a fragment of its message."""

    rule: str
    node: str | None
    field: str | None
    index: int | None
    element: int | None = None
    span: tuple[int, int] | None = None
    says: str = ""


def design(*extra: Any) -> dict:
    """A valid trigger -> agent design plus `extra` nodes (indexes 2, 3, ...)."""
    return sample_design(agent(), *extra, name="sample")


def check(graph: Any, expected: list[D]) -> None:
    before = copy.deepcopy(graph)
    defects = collect_defects(graph)
    got = [D(d.rule, d.node, d.field, d.index, d.element, d.span, "") for d in defects]
    assert got == [e._replace(says="") for e in expected], [d.msg for d in defects]
    for defect, wanted in zip(defects, expected, strict=True):
        assert defect.rule in RULES
        assert defect.msg and len(defect.msg) < 220
        assert wanted.says in defect.msg
    assert validate_designer_graph(graph) == [d.as_dict() for d in defects]
    assert graph == before


RULE_CASES: dict[str, list[tuple[Any, list[D]]]] = {
    "graph-shape": [
        (design(), []),
        ({"nodes": [trigger()]}, []),
        ({"nodes": [trigger()] + [agent(f"a{i}") for i in range(MAX_NODES - 1)]}, []),
        (None, [D("graph-shape", None, None, None, says="JSON object, got null")]),
        ([trigger()], [D("graph-shape", None, None, None, says="got a list of 1")]),
        ("nodes", [D("graph-shape", None, None, None, says='"nodes"')]),
        ({}, [D("graph-shape", None, "nodes", None, says="needs a nodes list")]),
        ({"nodes": {}}, [D("graph-shape", None, "nodes", None, says="got an object")]),
        ({"nodes": []}, [D("graph-shape", None, "nodes", None, says="empty")]),
        ({"nodes": [trigger()] + [agent(f"a{i}") for i in range(MAX_NODES)]},
         [D("graph-shape", None, "nodes", None, says=f"at most {MAX_NODES}")]),
        (design(7), [D("graph-shape", None, None, 2, says="node 2 must be an object, got 7")]),
        (design(None, [1]), [D("graph-shape", None, None, 2, says="null"),
                             D("graph-shape", None, None, 3, says="a list of 1")]),
    ],
    "identity": [
        (design(agent("a-1"), agent("A_1")), []),
        (design({"type": "note"}), [D("identity", None, "id", 2, says="no id")]),
        (design(note(node_id=5)), [D("identity", None, "id", 2, says="got 5")]),
        (design(note(node_id=None)), [D("identity", None, "id", 2, says="got null")]),
        (design(note(node_id="")), [D("identity", None, "id", 2, says="empty")]),
        (design(note(node_id="  ")), [D("identity", None, "id", 2, says="empty")]),
        (design(note("work")),
         [D("identity", "work", "id", 2, says="an earlier agent node already uses it")]),
        (design(note("work"), note("work")),
         [D("identity", "work", "id", 2, says="earlier agent"),
          D("identity", "work", "id", 3, says="earlier agent")]),
    ],
    "one-trigger": [
        (design(), []),
        ({"nodes": [agent(after=[])]}, [D("one-trigger", None, "nodes", None, says="none")]),
        (design(trigger("again"), trigger("third")),
         [D("one-trigger", "again", "type", 2, says='"start" is already the trigger'),
          D("one-trigger", "third", "type", 3)]),
    ],
    "known-kind": [
        *[(design({"id": "k", "type": kind, "prompt": "p", "expression": "out.work.x == 1",
                   "question": "q"}), []) for kind in KINDS if kind != "trigger"],
        (design({"id": "k"}), [D("known-kind", "k", "type", 2, says="no type")]),
        (design({"id": "k", "type": "agnet"}),
         [D("known-kind", "k", "type", 2, says='did you mean "agent"?')]),
        (design({"id": "k", "type": "Output"}),
         [D("known-kind", "k", "type", 2, says='did you mean "output"?')]),
        (design({"id": "k", "type": "robot"}),
         [D("known-kind", "k", "type", 2,
            says='unknown type "robot"; expected one of trigger, agent, condition, approval, '
                 "output, note")]),
        (design({"id": "k", "type": 3}), [D("known-kind", "k", "type", 2, says="3")]),
        (design({"id": "k", "type": None}), [D("known-kind", "k", "type", 2, says="null")]),
        (design({"id": "k", "type": ["agent"]}), [D("known-kind", "k", "type", 2)]),
        (design({"id": "k", "type": "x" * 1000}), [D("known-kind", "k", "type", 2, says="…")]),
    ],
    "required-payload": [
        (design(cond("c", "out.work.x == 1"), approval()), []),
        (design({"id": "a2", "type": "agent"}),
         [D("required-payload", "a2", "prompt", 2, says="an agent node needs a prompt")]),
        (design(agent("a2", prompt=" \n")), [D("required-payload", "a2", "prompt", 2,
                                               says="empty")]),
        (design(agent("a2", prompt=["x"])), [D("required-payload", "a2", "prompt", 2,
                                               says="must be a string")]),
        (design({"id": "c", "type": "condition"}),
         [D("required-payload", "c", "expression", 2, says="a condition node needs")]),
        (design(cond("c", "")), [D("required-payload", "c", "expression", 2)]),
        (design(cond("c", 1)), [D("required-payload", "c", "expression", 2)]),
        (design({"id": "q", "type": "approval"}),
         [D("required-payload", "q", "question", 2, says="an approval node needs a question")]),
        (design(approval(question=None)), [D("required-payload", "ok", "question", 2,
                                             says="got null")]),
    ],
    "edges": [
        (design(agent("b", after=["work", "start"]), note("n"), agent("c", after=[])), []),
        (design(agent("b", after="work")),
         [D("edges", "b", "after", 2, says='after must be a list of node ids, got "work"')]),
        (design(agent("b", after=None)), [D("edges", "b", "after", 2, says="got null")]),
        (design(agent("b", after=["work", 3, "ghost", "b", "n"]), note("n")),
         [D("edges", "b", "after", 2, 1, says="after[1] must be a node id"),
          D("edges", "b", "after", 2, 2, says='no node has the id "ghost"'),
          D("edges", "b", "after", 2, 3, says="itself"),
          D("edges", "b", "after", 2, 4, says="is a note")]),
        (design(agent("b", after=[" "])), [D("edges", "b", "after", 2, 0)]),
    ],
    "acyclic": [
        (design(agent("b", after=["work"]), agent("c", after=["b", "work"])), []),
        # element: the entry of `after` that closes the cycle (the edge to cut)
        (design(agent("p", after=["q"]), agent("q", after=["p"])),
         [D("acyclic", "p", "after", 2, 0, says="after forms a cycle: p → q → p")]),
        (design(agent("a", after=["c"]), agent("b", after=["a"]), agent("c", after=["b"]),
                agent("x", after=["y"]), agent("y", after=["x"])),
         [D("acyclic", "a", "after", 2, 0, says="a → b → c → a")]),
        ({"nodes": [trigger(), agent(after=["start", "late"]), agent("late", after=["work"])]},
         [D("acyclic", "work", "after", 1, 1, says="work → late → work")]),
        (design(agent("p", after=["work", 7, "q", "q"]), agent("q", after=["p"])),
         [D("edges", "p", "after", 2, 1),
          D("acyclic", "p", "after", 2, 2, says="p → q → p")]),
        # only a node sharing p's id lists q: no single entry to point at
        (design(agent("p", after=["work"]), agent("q", after=["p"]), agent("p", after=["q"])),
         [D("acyclic", "p", "after", 2, says="p → q → p"),
          D("identity", "p", "id", 4)]),
    ],
    "retries": [
        *[(design(agent("r", retries=value)), []) for value in (0, 1, 3, 2.0)],
        *[(design(agent("r", retries=value)),
           [D("retries", "r", "retries", 2, says=f"from 0 to 3, got {shown}")])
          for value, shown in ((4, "4"), (-1, "-1"), (2.5, "2.5"), (True, "true"),
                               ("2", '"2"'), (None, "null"), ([1], "a list of 1"),
                               (math.nan, "nan"), (math.inf, "inf"), (10**400,
                                                                       "a very large number"))],
    ],
    "deadline": [
        *[(design(agent("a2", timeout_minutes=v), approval(timeout_minutes=v)), [])
          for v in (1, 60, 4320, 30.0)],
        (design(approval(on_timeout="reject"), approval("ok2", on_timeout="escalate")), []),
        *[(design(agent("a2", timeout_minutes=v), approval(timeout_minutes=v)),
           [D("deadline", "a2", "timeout_minutes", 2, says="from 1 to 4320"),
            D("deadline", "ok", "timeout_minutes", 3, says="from 1 to 4320")])
          for v in (0, 4321, 1.5, False, "60", None)],
        (design(approval(on_timeout="ignore")),
         [D("deadline", "ok", "on_timeout", 2, says='"reject", "escalate", got "ignore"')]),
        (design(approval(on_timeout=None)), [D("deadline", "ok", "on_timeout", 2)]),
    ],
    "delivery": [
        (design(output(deliver="notification"), output("o2", deliver="channel",
                                                       target="slack:#x"), output("o3")), []),
        (design(output(deliver="email")),
         [D("delivery", "out", "deliver", 2, says='"notification", "channel", got "email"')]),
        (design(output(deliver=None)), [D("delivery", "out", "deliver", 2)]),
        (design(output(deliver="channel")),
         [D("delivery", "out", "target", 2, says="needs a target")]),
        (design(output(deliver="channel", target="general")),
         [D("delivery", "out", "target", 2, says="contains ':'")]),
        (design(output(deliver="channel", target="")), [D("delivery", "out", "target", 2)]),
        (design(output(deliver="channel", target=5)),
         [D("field-type", "out", "target", 2, says="target must be a string, got 5")]),
        (design(output(deliver="notification", target="general")), []),
    ],
    "condition": [
        (design(cond("c", 'out.work.verdict == "yes"'), cond("c2", "out.c.x.0 >= 2")), []),
        (design(cond("c", "out.work.x = 1")),
         [D("condition", "c", "expression", 2, span=(11, 12), says="use == to compare")]),
        (design(cond("c", "work.x == 1")),
         [D("condition", "c", "expression", 2, span=(0, 6), says="starts with out.")]),
        (design(cond("c", "out.work.x == maybe")),
         [D("condition", "c", "expression", 2, span=(14, 19))]),
        (design(cond("c", "out.ghost.x == 1")),
         [D("condition", "c", "expression", 2, span=(4, 9), says='no node has the id "ghost"')]),
        (design(cond("c", "out.memo.x == 1"), note()),
         [D("condition", "c", "expression", 2, span=(4, 8), says="a note: it has no output")]),
        (design(cond("c", "out.start.x == 1")),
         [D("condition", "c", "expression", 2, span=(4, 9), says="a trigger")]),
        (design(cond("c", "out.work.x == " + "1" * 3000)),
         [D("condition", "c", "expression", 2, span=(0, 3014), says="at most 2000")]),
    ],
    "note-color": [
        *[(design(note(color=c)), []) for c in ("yellow", "blue", "green", "red", "")],
        (design(note()), []),
        *[(design(note(color=c)), [D("note-color", "memo", "color", 2, says=shown)])
          for c, shown in (("pink", '"pink"'), ("Yellow", '"Yellow"'), (None, "null"),
                           (1, "1"))],
    ],
    "field-type": [
        (design(approval(options=["yes", "no", "later"], title="Gate"),
                note(text="hi", title=""), agent("m", profile="p", model="x")), []),
        (design(approval(options=[])), [D("field-type", "ok", "options", 2, says="non-empty")]),
        (design(approval(options="yes")), [D("field-type", "ok", "options", 2)]),
        (design(approval(options=["yes", 1, "", "yes", " "])),
         [D("field-type", "ok", "options", 2, 1, says="must be a string, got 1"),
          D("field-type", "ok", "options", 2, 2, says="empty"),
          D("field-type", "ok", "options", 2, 3, says="repeats options[0]"),
          D("field-type", "ok", "options", 2, 4, says="empty")]),
        (design(agent("m", title=1, profile=None, model=["x"])),
         [D("field-type", "m", "title", 2, says="title must be a string, got 1"),
          D("field-type", "m", "profile", 2, says="null"),
          D("field-type", "m", "model", 2, says="a list of 1")]),
        (design(note(text={})), [D("field-type", "memo", "text", 2, says="an object")]),
        (design(output(target=3)), [D("field-type", "out", "target", 2)]),
        # a field of another kind is not checked here (the editor warns: unknown field)
        (design(note(prompt=3, retries=9, deliver="x")), []),
    ],
}


def test_every_rule_has_passing_and_failing_cases():
    assert set(RULE_CASES) == set(RULES)
    for rule, cases in RULE_CASES.items():
        assert any(not expected for _, expected in cases), rule
        assert any(any(d.rule == rule for d in expected) for _, expected in cases), rule


def test_every_vocabulary_field_has_a_check():
    assert ALL_FIELD_NAMES - {"id", "type", "after"} == set(validator_module._FIELD_CHECKS)


@pytest.mark.parametrize("graph,expected", [
    pytest.param(graph, expected, id=f"{rule}-{i}")
    for rule, cases in RULE_CASES.items() for i, (graph, expected) in enumerate(cases)
])
def test_rule(graph, expected):
    check(graph, expected)


def test_one_design_reports_every_defect_in_order():
    graph = {"name": "broken", "nodes": [
        {"id": "w", "type": "agnet", "after": "start"},                       # 0
        {"type": "agent", "prompt": "", "retries": 7, "timeout_minutes": 0},  # 1
        {"id": "w", "type": "output", "deliver": "channel", "target": "x"},   # 2
        "junk",                                                               # 3
        {"id": "n", "type": "note", "color": "pink", "after": ["n"]},         # 4
        {"id": "c", "type": "condition", "expression": "out.q.x === 1",
         "after": ["n", "ghost", 9]},                                         # 5
        {"id": "q", "type": "approval", "question": " ", "options": ["a", "a"],
         "on_timeout": "later", "after": ["r"]},                              # 6
        {"id": "r", "type": "agent", "prompt": "p", "after": ["q"]},         # 7
    ]}
    check(graph, [
        D("one-trigger", None, "nodes", None),
        D("known-kind", "w", "type", 0, says="did you mean"),
        D("edges", "w", "after", 0),
        D("identity", None, "id", 1),
        D("required-payload", None, "prompt", 1),
        D("retries", None, "retries", 1),
        D("deadline", None, "timeout_minutes", 1),
        D("identity", "w", "id", 2),
        D("delivery", "w", "target", 2),
        D("graph-shape", None, None, 3),
        D("edges", "n", "after", 4, 0, says="itself"),
        D("note-color", "n", "color", 4),
        D("edges", "c", "after", 5, 0, says="note"),
        D("edges", "c", "after", 5, 1, says="ghost"),
        D("edges", "c", "after", 5, 2),
        D("condition", "c", "expression", 5, span=(10, 11)),
        D("acyclic", "q", "after", 6, 0, says="q → r → q"),
        D("required-payload", "q", "question", 6),
        D("field-type", "q", "options", 6, 1),
        D("deadline", "q", "on_timeout", 6),
    ])
    assert len({d.rule for d in collect_defects(graph)}) >= 8


def test_contract_dicts():
    graph = design(agent("b", retries=9), 3)
    assert validate_designer_graph(graph) == [
        {"node": "b", "field": "retries", "index": 2,
         "msg": "retries must be a whole number from 0 to 3, got 9"},
        {"node": None, "field": None, "index": 3, "msg": "node 3 must be an object, got 3"},
    ]
    assert validate_designer_graph({"nodes": [agent(after=[])]}) == [
        {"node": None, "field": "nodes", "msg": "a design needs exactly one trigger node; it "
                                                 "has none"}]
    assert validate_designer_graph(design()) == []


@pytest.mark.parametrize("graph", [
    None, 3, "x", [], {}, {"nodes": None}, {"nodes": "abc"}, {"nodes": []},
    {"nodes": [{}] * (MAX_NODES + 1)},
])
def test_shape_failures_short_circuit(graph):
    defects = collect_defects(graph)
    assert [d.rule for d in defects] == ["graph-shape"]


def test_only_shape_failures_short_circuit():
    # a non-object node is a shape defect but the other nodes are still checked
    defects = collect_defects({"nodes": [1, {"id": "a", "type": "agent"}]})
    assert [d.rule for d in defects] == ["one-trigger", "graph-shape", "required-payload"]


def test_validator_is_pure_on_deep_and_huge_values():
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    deep_obj: Any = {}
    for _ in range(100_000):
        deep_obj = {"k": deep_obj}
    graph = design(agent("a2", retries=deep, prompt=deep_obj, title=deep, after=[deep, deep_obj]),
                   approval(options=[deep, deep_obj]), deep)
    defects = validate_designer_graph(graph)
    assert [d["field"] for d in defects] == ["after", "after", "title", "prompt", "retries",
                                              "options", "options", None]
    assert [d["index"] for d in defects] == [2, 2, 2, 2, 2, 3, 3, 4]
    big = design(agent("a2", after=["ghost"] * 100_000), note(text="x" * 10**6, color="x" * 10**6))
    defects = validate_designer_graph(big)
    assert len(defects) == 100_001
    assert max(len(d["msg"]) for d in defects) < 220


def test_messages_survive_lone_surrogates():
    defects = validate_designer_graph(design(note(color="\ud800")))
    assert "\\ud800" in defects[0]["msg"]
    json.dumps(defects, ensure_ascii=False).encode("utf-8")


def test_nan_and_big_numbers_from_json_loads():
    graph = json.loads('{"nodes": [{"id": "start", "type": "trigger"}, {"id": "a", "type": '
                       '"agent", "prompt": "p", "retries": NaN, "timeout_minutes": Infinity}]}')
    assert [d["field"] for d in validate_designer_graph(graph)] == ["retries", "timeout_minutes"]


# --- property: never raises, never mutates --------------------------------

FIELD_NAMES = sorted(ALL_FIELD_NAMES | {"expression", "nodes", "bogus"})
json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=20,
)
plausible_ids = st.sampled_from(["start", "work", "c", "memo", "", " ", "ghost"])
plausible_values = (
    plausible_ids | st.sampled_from([*KINDS, "agnet", *range(-1, 5), 2.5, 4320, 4321,
                                     "channel", "notification", "slack:#x", "red", "escalate",
                                     "out.work.x == 1", "out.memo.x > 2", "out.x", True, None])
    | st.lists(plausible_ids, max_size=4) | json_values
)
plausible_nodes = st.dictionaries(st.sampled_from(FIELD_NAMES), plausible_values, max_size=8)
graphs = json_values | st.fixed_dictionaries(
    {"nodes": st.lists(plausible_nodes | json_values, max_size=8)},
    optional={"name": json_values},
)


@given(graphs)  # the budget is the profile's (tests/conftest.py): 100 in CI, 2000 in soak
def test_never_raises_never_mutates(graph):
    before = copy.deepcopy(graph)
    defects = validate_designer_graph(graph)
    assert _same(graph, before)
    assert isinstance(defects, list)
    for defect in defects:
        assert set(defect) <= {"node", "field", "msg", "index"}
        assert isinstance(defect["msg"], str) and defect["msg"]
        assert defect["node"] is None or isinstance(defect["node"], str)


def _same(left: Any, right: Any) -> bool:
    """Deep equality where NaN equals NaN (a deepcopy of NaN is the same object anyway)."""
    return json.dumps(left, sort_keys=True, default=str) == json.dumps(right, sort_keys=True,
                                                                       default=str)


@pytest.mark.parametrize("value,expected", [
    (0, 0), (3, 3), (-2, -2), (10**30, 10**30), (2.0, 2), (-0.0, 0), (1e20, 10**20),
    (2.5, None), (True, None), (False, None), ("3", None), (None, None), (math.nan, None),
    (math.inf, None), (-math.inf, None), ([1], None), ({}, None),
])
def test_whole_number(value, expected):
    from hwf_lsp.rules.numbers import whole_number

    result = whole_number(value)
    assert result == expected
    assert result is None or type(result) is int
