"""Graph helpers: tolerant of junk, iterative, deterministic cycle paths."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hwf_lsp.rules.graph import (
    ancestors,
    children_map,
    descendants,
    find_cycle,
    parent_map,
    parents_of,
    runs_after,
    usable_id,
    would_create_cycle,
)


def chain(*specs: str) -> list[dict]:
    """'b<a,c' means node b runs after a and c; 'a' has no parents."""
    nodes = []
    for spec in specs:
        ident, _, parents = spec.partition("<")
        nodes.append({"id": ident, "after": parents.split(",") if parents else []})
    return nodes


DIAMOND = chain("t", "a<t", "b<t", "c<a,b", "d<c", "x")
JUNK = [5, None, {"id": 3}, {"id": "  "}, {"id": "a", "after": "t"}, {"id": "b", "after": [1, "a",
        "a", "ghost"]}, {"no": "id"}]


@pytest.mark.parametrize("node,expected", [
    ({"after": ["a", 1, "b", "a", None]}, ["a", "b"]),
    ({"after": "a"}, []),
    ({}, []),
    ("junk", []),
])
def test_parents_of(node, expected):
    assert parents_of(node) == expected


@pytest.mark.parametrize("node,expected", [
    ({"id": "a"}, "a"), ({"id": ""}, None), ({"id": " "}, None), ({"id": 1}, None), (3, None),
])
def test_usable_id(node, expected):
    assert usable_id(node) == expected


def test_children_map_lists_every_id_and_ignores_unknown_parents():
    assert children_map(DIAMOND) == {"t": ["a", "b"], "a": ["c"], "b": ["c"], "c": ["d"],
                                     "d": [], "x": []}
    assert children_map(JUNK) == {"a": ["b"], "b": []}


@pytest.mark.parametrize("node,up,down", [
    ("t", set(), {"a", "b", "c", "d"}),
    ("c", {"t", "a", "b"}, {"d"}),
    ("d", {"t", "a", "b", "c"}, set()),
    ("x", set(), set()),
    ("ghost", set(), set()),
])
def test_ancestors_and_descendants(node, up, down):
    assert ancestors(DIAMOND, node) == up
    assert descendants(DIAMOND, node) == down


@pytest.mark.parametrize("nodes", [DIAMOND, JUNK, chain("a<c", "b<a", "c<b", "d<a,c"),
                                   chain("s<s", "t<s")])
def test_runs_after_is_membership_in_ancestors(nodes):
    parents = parent_map(nodes)
    ids = [*parents, "ghost"]
    for node in ids:
        for other in ids:
            assert runs_after(parents, node, other) is (other in ancestors(nodes, node)), \
                (node, other)


@pytest.mark.parametrize("nodes,cycle", [
    (DIAMOND, None),
    (chain("a<c", "b<a", "c<b"), ["a", "b", "c", "a"]),
    (chain("c<b", "a<c", "b<a"), ["c", "a", "b", "c"]),
    (chain("t", "p<q", "q<p"), ["p", "q", "p"]),
    (chain("a<a"), ["a", "a"]),
    (chain("z", "y<z,w", "w<y"), ["y", "w", "y"]),
    (chain("a<b", "b<a", "c<d", "d<c"), ["a", "b", "a"]),
    (JUNK, None),
])
def test_find_cycle(nodes, cycle):
    assert find_cycle(nodes) == cycle


def test_find_cycle_can_ignore_self_loops():
    assert find_cycle(chain("a<a", "b<a"), include_self_loops=False) is None
    assert find_cycle(chain("a<a,b", "b<a"), include_self_loops=False) == ["a", "b", "a"]


def test_cycle_path_follows_run_order():
    nodes = chain("a<c", "b<a", "c<b")
    path = find_cycle(nodes)
    for before, after in zip(path, path[1:], strict=False):
        assert before in parents_of(next(n for n in nodes if n["id"] == after))


def test_long_chains_do_not_recurse():
    size = 100_000
    nodes = [{"id": "n0"}] + [{"id": f"n{i}", "after": [f"n{i - 1}"]} for i in range(1, size)]
    assert find_cycle(nodes) is None
    assert len(descendants(nodes, "n0")) == size - 1
    nodes[0] = {"id": "n0", "after": [f"n{size - 1}"]}
    assert len(find_cycle(nodes)) == size + 1


@pytest.mark.parametrize("node,parent,expected", [
    ("c", "d", True),   # d runs after c
    ("c", "c", True),
    ("t", "d", True),
    ("d", "a", False),
    ("x", "d", False),
    ("a", "b", False),
])
def test_would_create_cycle(node, parent, expected):
    assert would_create_cycle(DIAMOND, node, parent) is expected


IDS = st.sampled_from(["a", "b", "c", "d", " ", ""]) | st.integers(0, 2)
NODES = st.lists(st.fixed_dictionaries({"id": IDS}, optional={
    "after": st.lists(IDS, max_size=4) | IDS}) | st.integers(0, 1), max_size=8)


@settings(max_examples=500, deadline=None)
@given(NODES)
def test_the_one_pass_children_map_is_the_inverted_parent_map(nodes):
    """children_map's one pass (no shared ids) gives what inverting parent_map gives."""
    expected: dict = {ident: [] for ident in parent_map(nodes)}
    for child, parents in parent_map(nodes).items():
        for parent in parents:
            expected[parent].append(child)
    assert children_map(nodes) == expected
    assert list(children_map(nodes)) == list(expected)  # keys in node order too
