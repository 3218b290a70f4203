"""Incremental rulebook: a recheck after a one-node edit equals the full check, always."""

from __future__ import annotations

import copy
import json
import operator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hwf_lsp.workflow import revalidate
from hwf_lsp.workflow.graph import cycle_or_ranks, find_cycle, parent_map
from hwf_lsp.workflow.revalidate import CheckedGraph, check_graph, recheck_graph
from hwf_lsp.workflow.validator import collect_defects
from hwf_lsp.workflow.vocabulary import KINDS, MAX_NODES


def bench_design() -> dict:
    """The benchmark's 50-node design (ids n00000..n00049, 10 defects), built locally."""
    nodes: list[dict] = [{"id": "n00000", "type": "trigger", "title": "Start"}]
    for index in range(1, 50):
        after = [f"n{index - 1:05d}"] + ([f"n{index - 3:05d}"] if index > 2 and index % 3 == 0
                                         else [])
        node: dict[str, Any] = {"id": f"n{index:05d}", "title": f"Step {index}", "after": after}
        slot = index % 10
        if slot == 4:
            source = "ghost" if index % 30 == 14 else f"n{index - 1:05d}"
            node.update(type="condition", expression=f"out.{source}.score >= {index % 10}")
        elif slot == 7:
            node.update(type="approval", question="Publish?", options=["approve", "reject"],
                        on_timeout="later" if index % 30 == 17 else "escalate")
        elif slot == 9:
            node.update(type="output", deliver="channel",
                        target="no-colon" if index % 30 == 19 else "slack:#reviews")
        else:
            node.update(type="agent", prompt="Do the step", retries=index % 4)
            if index % 25 == 5:
                node["retries"] = 7
        nodes.append(node)
    return {"name": "bench", "nodes": nodes}


SMALL = {"name": "small", "nodes": [
    {"id": "start", "type": "trigger"},
    {"id": "work", "type": "agent", "prompt": "Do it", "after": ["start"]},
    {"id": "gate", "type": "condition", "expression": "out.work.ok == true", "after": ["work"]},
    {"id": "ship", "type": "output", "after": ["gate"], "deliver": "notification"},
    {"id": "memo", "type": "note", "text": "hi"},
    {"id": "tail", "type": "agent", "prompt": "More", "after": ["ship", "work"], "retries": 1},
]}
TWIN_CYCLES = {"nodes": [  # a new edge y -> w, z closes two cycles, one via w's second node
    {"id": "y", "type": "trigger"},
    {"id": "w", "type": "agent", "prompt": "p"},
    {"id": "w", "type": "agent", "prompt": "p", "after": ["y"]},
    {"id": "z", "type": "agent", "prompt": "p", "after": ["y"]},
]}
DELETE = object()
"""As an edit's value: remove the field."""


def edited(graph: dict, index: int, field: str, value: Any) -> dict:
    """`graph` with node `index` replaced copy-on-write (every other node is the same object)."""
    nodes = list(graph["nodes"])
    node = dict(nodes[index])
    if value is DELETE:
        node.pop(field, None)
    else:
        node[field] = value
    nodes[index] = node
    return {**graph, "nodes": nodes}


def check_recheck(prev: CheckedGraph, graph: Any, changed: int | None) -> CheckedGraph:
    """recheck_graph must give exactly collect_defects and leave `prev` as it was."""
    before = list(prev.defects)
    result = recheck_graph(prev, graph, changed)
    assert result.defects == collect_defects(graph)
    assert [d.msg for d in result.defects] == [d.msg for d in collect_defects(graph)]
    assert prev.defects == before
    assert result.graph is graph
    return result


EDITS: list[tuple[str, dict, int, str, Any]] = [
    # (case, design, node index, field, new value)
    ("id-duplicate", SMALL, 3, "id", "work"),
    ("id-duplicate-of-later", SMALL, 1, "id", "tail"),
    ("id-breaks-references", SMALL, 1, "id", "labour"),
    ("id-fixes-reference", edited(SMALL, 3, "after", ["labour"]), 1, "id", "labour"),
    ("id-blank", SMALL, 1, "id", "  "),
    ("id-not-a-string", SMALL, 1, "id", 7),
    ("id-removed", SMALL, 2, "id", DELETE),
    ("id-resolves-duplicate", edited(SMALL, 5, "id", "work"), 5, "id", "tail"),
    ("id-makes-cycle", edited(SMALL, 1, "after", ["start", "finale"]), 5, "id", "finale"),
    ("after-makes-cycle", SMALL, 1, "after", ["start", "tail"]),
    ("after-unmakes-cycle", edited(SMALL, 1, "after", ["tail"]), 1, "after", ["start"]),
    ("after-closes-cycle-via-duplicate", TWIN_CYCLES, 0, "after", ["w", "z"]),
    ("after-self", SMALL, 3, "after", ["ship"]),
    ("after-note", SMALL, 3, "after", ["memo"]),
    ("after-dangling", SMALL, 5, "after", ["ship", "wor"]),
    ("after-junk", SMALL, 5, "after", "ship"),
    ("after-non-strings", SMALL, 5, "after", [1, None, "work"]),
    ("type-to-trigger", SMALL, 3, "type", "trigger"),
    ("type-to-trigger-first", edited(SMALL, 4, "type", "trigger"), 4, "type", "note"),
    ("type-from-trigger", SMALL, 0, "type", "agent"),
    ("type-to-note", SMALL, 1, "type", "note"),
    ("type-from-note", SMALL, 4, "type", "agent"),
    ("type-to-condition", SMALL, 5, "type", "condition"),
    ("type-typo", SMALL, 1, "type", "agnet"),
    ("type-list", SMALL, 1, "type", ["agent"]),
    ("expression-target", SMALL, 2, "expression", "out.start.ok == true"),
    ("expression-ghost", SMALL, 2, "expression", "out.ghost.ok == true"),
    ("expression-note", SMALL, 2, "expression", "out.memo.ok == true"),
    ("expression-broken", SMALL, 2, "expression", "out.work.ok = true"),
    ("expression-blank", SMALL, 2, "expression", " "),
    ("prompt-blank", SMALL, 1, "prompt", ""),
    ("prompt-edit", SMALL, 1, "prompt", "Do it now"),
    ("prompt-not-string", SMALL, 1, "prompt", ["x"]),
    ("retries-bad", SMALL, 5, "retries", 9),
    ("retries-good", SMALL, 5, "retries", 3),
    ("bench-rename-25", bench_design(), 25, "id", "n00x25"),
    ("bench-prompt-20", bench_design(), 20, "prompt", "Do the step!"),
    ("bench-after-27", bench_design(), 27, "after", ["n00026", "n0002"]),
    ("bench-expression-24", bench_design(), 24, "expression", "out.n00021.score >= 4"),
    ("bench-cycle", bench_design(), 10, "after", ["n00009", "n00040"]),
    ("bench-rename-first", bench_design(), 0, "id", "n00001"),
]


@pytest.mark.parametrize("case,graph,index,field,value", EDITS, ids=[e[0] for e in EDITS])
def test_single_node_edit(case, graph, index, field, value):
    prev = check_graph(graph)
    assert prev.defects == collect_defects(graph)
    new = edited(graph, index, field, value)
    result = check_recheck(prev, new, index)
    if field not in ("id", "type", "after"):  # context unchanged: other nodes' lists reused
        reused = {id(d) for d in prev.defects}
        assert all(id(d) in reused for d in result.defects if d.index != index)
    back = check_recheck(result, {**new, "nodes": [*new["nodes"][:index], graph["nodes"][index],
                                                   *new["nodes"][index + 1:]]}, index)
    assert back.defects == prev.defects


def test_top_level_change_reuses_everything():
    prev = check_graph(SMALL)
    result = check_recheck(prev, {**SMALL, "name": "renamed"}, None)
    assert result.defects is prev.defects
    again = check_recheck(result, {**SMALL, "name": "again"}, 3)
    assert all(map(operator.is_, again.defects, prev.defects))


def test_reuses_the_defect_lists_of_untouched_nodes():
    design = edited(SMALL, 5, "retries", 9)
    prev = check_graph(design)
    result = check_recheck(prev, edited(design, 1, "prompt", "Again"), 1)
    assert result.defects[0] is prev.defects[0]


PRECONDITION_BREAKS = [
    ("appended", lambda g: {**g, "nodes": [*g["nodes"], {"id": "x", "type": "trigger"}]}, 1),
    ("removed", lambda g: {**g, "nodes": g["nodes"][:-1]}, 1),
    ("two-nodes", lambda g: edited(edited(g, 1, "id", "tail"), 3, "after", ["ghost"]), 1),
    ("two-nodes-no-hint", lambda g: edited(edited(g, 1, "prompt", ""), 3, "type", "x"), None),
    ("other-index", lambda g: edited(g, 3, "id", "work"), 1),
    ("copy-elsewhere", lambda g: {**g, "nodes": [copy.deepcopy(n) for n in g["nodes"]]}, 0),
    ("none-but-changed", lambda g: edited(g, 2, "id", "start"), None),
    ("index-out-of-range", lambda g: edited(g, 2, "id", "start"), 99),
    ("not-a-dict", lambda g: g["nodes"], 0),
    ("nodes-missing", lambda g: {"name": "x"}, 0),
    ("nodes-empty", lambda g: {**g, "nodes": []}, 0),
    ("nodes-not-list", lambda g: {**g, "nodes": "abc"}, 0),
    ("node-not-dict", lambda g: {**g, "nodes": [*g["nodes"][:2], "x", *g["nodes"][3:]]}, 2),
    ("too-many", lambda g: {**g, "nodes": g["nodes"] * MAX_NODES}, 0),
]


@pytest.mark.parametrize("case,make,changed", PRECONDITION_BREAKS,
                         ids=[c[0] for c in PRECONDITION_BREAKS])
def test_precondition_breaks_still_give_the_right_answer(case, make, changed):
    prev = check_graph(SMALL)
    result = check_recheck(prev, make(SMALL), changed)
    check_recheck(result, SMALL, changed)  # and back, from whatever state that left


def test_list_reused_and_mutated_in_place():
    """The snapshot, not the caller's list, is what a recheck compares against."""
    graph = copy.deepcopy(SMALL)
    prev = check_graph(graph)
    graph["nodes"][1] = {**graph["nodes"][1], "id": "tail"}
    check_recheck(prev, graph, 1)


@pytest.mark.parametrize("field,value", [("id", "work"), ("after", ["tail"]), ("type", "note"),
                                         ("prompt", ""), ("retries", 9)])
def test_the_changed_node_may_be_edited_in_place(field, value):
    graph = copy.deepcopy(SMALL)
    prev = check_graph(graph)
    graph["nodes"][1][field] = value
    check_recheck(prev, graph, 1)


def test_typing_ids_letter_by_letter_leaves_no_stale_state():
    """The state after many renames is as big as a fresh check's: memory stays bounded."""
    graph = bench_design()
    state = check_graph(graph)
    for length in range(1, 30):
        graph = edited(graph, 25, "id", "x" * length)
        state = check_recheck(state, graph, 25)
        graph = edited(graph, 26, "after", ["y" * length])
        state = check_recheck(state, graph, 26)
    fresh = check_graph(graph)
    for name in ("_holders", "_readers", "_ranks"):
        assert getattr(state, name).keys() == getattr(fresh, name).keys()


def test_edited_in_place_at_changed_and_replaced_elsewhere():
    graph = copy.deepcopy(SMALL)
    prev = check_graph(graph)
    graph["nodes"][1]["id"] = "tail"
    graph["nodes"][3] = {**graph["nodes"][3], "after": ["ghost"]}
    check_recheck(prev, graph, 1)


def test_from_a_shape_defect():
    prev = check_graph({"nodes": []})
    check_recheck(prev, SMALL, 0)


# --- property: random designs, random one-field edits -------------------------------

IDS = ["a", "b", "c", "d", "e"]
ID_VALUES = [*IDS, "", " ", "a b", "ghost"]
junk = st.none() | st.booleans() | st.integers(-2, 5) | st.floats(allow_nan=True) \
    | st.text(max_size=4) | st.lists(st.integers(), max_size=2) | st.just({"k": 1})
ids = st.sampled_from(ID_VALUES)
expressions = st.builds("out.{}.x{}".format, st.sampled_from(ID_VALUES),
                        st.sampled_from([" == 1", " > 2", "", " = 1", ".0 != null"])) | \
    st.sampled_from(["", " ", "out.", "x == 1"])
FIELD_VALUES: dict[str, st.SearchStrategy] = {
    "id": ids | junk,
    "type": st.sampled_from([*KINDS, "agnet", ""]) | junk,
    "after": st.lists(ids | junk, max_size=4) | junk,
    "expression": expressions | junk,
    "prompt": st.sampled_from(["Do", "", " "]) | junk,
    "question": st.sampled_from(["Ok?", ""]) | junk,
    "retries": st.integers(-1, 5) | junk,
    "timeout_minutes": st.sampled_from([1, 0, 4320, 4321]) | junk,
    "options": st.lists(st.sampled_from(["a", "b", ""]), max_size=3) | junk,
    "deliver": st.sampled_from(["channel", "notification"]) | junk,
    "target": st.sampled_from(["slack:#x", "nocolon"]) | junk,
    "color": st.sampled_from(["red", "", "pink"]) | junk,
    "title": st.sampled_from(["T"]) | junk,
}
nodes = st.fixed_dictionaries(
    {"id": ids, "type": st.sampled_from([*KINDS, *KINDS[1:5]])},
    optional={name: value for name, value in FIELD_VALUES.items() if name not in ("id", "type")},
) | st.fixed_dictionaries({}, optional=FIELD_VALUES) | junk
designs = st.fixed_dictionaries({"nodes": st.lists(nodes, min_size=1, max_size=10)},
                                optional={"name": st.text(max_size=3)})


@st.composite
def edits(draw: st.DrawFn, graph: dict) -> tuple[dict, int | None]:
    """One copy-on-write edit of `graph`: (new graph, the `changed` argument)."""
    if draw(st.integers(0, 19)) == 0:
        return {**graph, "name": draw(st.text(max_size=3))}, None
    index = draw(st.integers(0, len(graph["nodes"]) - 1))
    if not isinstance(graph["nodes"][index], dict) or draw(st.integers(0, 14)) == 0:
        new = list(graph["nodes"])
        new[index] = draw(nodes)
        return {**graph, "nodes": new}, index
    field = draw(st.sampled_from(sorted(FIELD_VALUES)))
    value = DELETE if draw(st.integers(0, 5)) == 0 else draw(FIELD_VALUES[field])
    return edited(graph, index, field, value), index


SETTINGS = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(designs, st.data())
def test_recheck_equals_full_check(graph, data):
    assert check_graph(graph).defects == collect_defects(graph)
    new, changed = data.draw(edits(graph))
    check_recheck(check_graph(graph), new, changed)


@SETTINGS
@given(designs, st.data())
def test_chains_of_rechecks(graph, data):
    state = check_graph(graph)
    branch_point = state
    for _ in range(5):
        graph, changed = data.draw(edits(graph))
        state = check_recheck(state, graph, changed)
    new, changed = data.draw(edits(branch_point.graph))  # an older state is still usable
    check_recheck(branch_point, new, changed)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_chains_on_the_bench_design(data):
    graph = bench_design()
    state = check_graph(graph)
    for _ in range(5):
        index = data.draw(st.integers(0, 49))
        field = data.draw(st.sampled_from(["id", "after", "type", "expression"]))
        pool = [f"n{data.draw(st.integers(0, 49)):05d}", "n00x25", "", "ghost"]
        value = {
            "id": st.sampled_from(pool),
            "after": st.lists(st.sampled_from(pool), max_size=3),
            "type": st.sampled_from(["agent", "note", "trigger", "condition"]),
            "expression": st.builds("out.{}.score >= 1".format, st.sampled_from(pool)),
        }[field]
        graph = edited(graph, index, field, data.draw(value))
        state = check_recheck(state, graph, index)


# --- find_cycle: the acyclic shortcut changes no answer ------------------------------


def dfs_find_cycle(nodes: Any, include_self_loops: bool) -> list[str] | None:
    """find_cycle as it was before the shortcut: the DFS alone (the oracle)."""
    parents = parent_map(nodes)
    if not include_self_loops:
        parents = {k: [p for p in v if p != k] for k, v in parents.items()}
    order = {ident: i for i, ident in enumerate(parents)}
    state: dict[str, int] = {}
    for root in parents:
        if root in state:
            continue
        stack, on_path = [(root, 0)], [root]
        state[root] = 1
        while stack:
            current, next_edge = stack[-1]
            edges = parents[current]
            if next_edge == len(edges):
                stack.pop()
                on_path.pop()
                state[current] = 2
                continue
            stack[-1] = (current, next_edge + 1)
            parent = edges[next_edge]
            if state.get(parent) == 1:
                loop = on_path[on_path.index(parent):][::-1]
                first = min(range(len(loop)), key=lambda i: order[loop[i]])
                loop = loop[first:] + loop[:first]
                return loop + [loop[0]]
            if parent not in state:
                state[parent] = 1
                stack.append((parent, 0))
                on_path.append(parent)
    return None


after_graphs = st.lists(st.fixed_dictionaries(
    {"id": st.sampled_from(IDS + ["f", "g", " "]),
     "after": st.lists(st.sampled_from(IDS + ["f", "g", "zz", 1]), max_size=3) | junk},
) | junk, max_size=9)


@settings(max_examples=400, deadline=None)
@given(after_graphs, st.booleans())
def test_find_cycle_matches_the_plain_dfs(nodes, self_loops):
    expected = dfs_find_cycle(nodes, self_loops)
    assert revalidate._parent_map([revalidate._signature(n) for n in nodes]) == parent_map(nodes)
    assert find_cycle(nodes, include_self_loops=self_loops) == expected
    cycle, ranks = cycle_or_ranks(parent_map(nodes), include_self_loops=self_loops)
    assert cycle == expected
    assert (ranks is None) == (expected is not None)
    for child, its_parents in parent_map(nodes).items():
        for parent in its_parents:
            if ranks is not None and (self_loops or parent != child):
                assert ranks[parent] < ranks[child]


@pytest.mark.parametrize("parents,cycle", [
    ({"a": ["a", "zz"]}, ["a", "a"]),  # a caller's map whose parent is no key: as before
    ({"a": ["zz"]}, KeyError),
])
def test_find_cycle_on_an_open_parent_map_behaves_as_before(parents, cycle):
    if cycle is KeyError:
        with pytest.raises(KeyError):
            find_cycle([], parents=parents)
    else:
        assert find_cycle([], parents=parents) == cycle


def test_design_out_of_run_order():
    """Nodes listed against run order: the ranks come from Kahn's algorithm, not the order."""
    graph = json.loads(json.dumps(SMALL))
    graph["nodes"].reverse()
    prev = check_graph(graph)
    check_recheck(prev, edited(graph, 0, "after", ["ship", "start"]), 0)
