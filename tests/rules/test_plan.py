"""build_run_plan: stable topological order, trigger and notes dropped, clear errors."""

from __future__ import annotations

import copy

import pytest

from hwf_lsp.rules.plan import PlanError, build_run_plan


def design(*specs: str) -> dict:
    """'id:kind<p1,p2' per node."""
    nodes = []
    for spec in specs:
        head, _, parents = spec.partition("<")
        ident, _, kind = head.partition(":")
        node = {"id": ident, "type": kind}
        if parents:
            node["after"] = parents.split(",")
        nodes.append(node)
    return {"name": "d", "nodes": nodes}


@pytest.mark.parametrize("graph,order", [
    (design("t:trigger", "a:agent<t", "b:agent<a", "o:output<b"), ["a", "b", "o"]),
    (design("t:trigger", "o:output<b", "b:agent<a", "a:agent<t"), ["a", "b", "o"]),
    # ready steps keep their order in `nodes`
    (design("t:trigger", "x:agent<t", "y:agent<t", "z:agent"), ["x", "y", "z"]),
    (design("t:trigger", "z:agent", "y:agent<t", "x:agent<t"), ["z", "y", "x"]),
    (design("t:trigger", "c:agent<a,b", "b:agent", "a:agent", "d:output<c"),
     ["b", "a", "c", "d"]),
    # edges to the trigger and to notes are ignored for ordering; notes are dropped
    (design("n:note", "a:agent<n", "t:trigger", "b:agent<t"), ["a", "b"]),
    (design("t:trigger", "c:condition<a", "a:approval", "o:output<c,a"), ["a", "c", "o"]),
    (design("t:trigger"), []),
])
def test_plan_order(graph, order):
    before = copy.deepcopy(graph)
    plan = build_run_plan(graph)
    assert [step["id"] for step in plan] == order
    assert graph == before
    assert all(step["type"] not in ("trigger", "note") for step in plan)


def test_steps_are_shallow_copies():
    graph = design("t:trigger", "a:agent<t")
    graph["nodes"][1]["prompt"] = "go"
    plan = build_run_plan(graph)
    assert plan[0] == graph["nodes"][1]
    plan[0]["extra"] = 1
    assert "extra" not in graph["nodes"][1]


@pytest.mark.parametrize("graph,fragment", [
    (design("t:trigger", "a:agent", "a:output"), "duplicate node id 'a'"),
    (design("t:trigger", "t:agent"), "duplicate node id 't'"),
    ({"nodes": [{"type": "agent"}]}, "node 0 has no id"),
    ({"nodes": [{"id": " ", "type": "agent"}]}, "node 0 has no id"),
    ({"nodes": [{"id": 3, "type": "agent"}]}, "node 0 has no id"),
    ({"nodes": ["a"]}, "node 0 is not an object"),
    (design("t:trigger", "a:robot"), "unknown type 'robot'"),
    ({"nodes": [{"id": "a"}]}, "unknown type"),
    (design("t:trigger", "a:agent<ghost"), "unknown node 'ghost'"),
    (design("t:trigger", "a:agent<b", "b:agent<c", "c:agent<a"), "cycle: a → c → b → a"),
    (design("a:agent<a"), "cycle: a → a"),
    ({"nodes": [{"id": "a", "type": "agent", "after": "t"}]}, "after must be a list"),
    ({"nodes": [{"id": "a", "type": "agent", "after": [1]}]}, "non-string"),
    ([], "nodes"),
    ({"nodes": {}}, "nodes"),
])
def test_plan_errors(graph, fragment):
    with pytest.raises(PlanError) as caught:
        build_run_plan(graph)
    assert fragment in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_large_plan_is_linear_enough():
    nodes = [{"id": "t", "type": "trigger"}] + [
        {"id": f"s{i}", "type": "agent", "after": [f"s{i - 1}"] if i else ["t"]}
        for i in range(20_000)
    ]
    plan = build_run_plan({"nodes": list(reversed(nodes))})
    assert [s["id"] for s in plan] == [f"s{i}" for i in range(20_000)]
