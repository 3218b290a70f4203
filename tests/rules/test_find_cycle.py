"""find_cycle's acyclic shortcut (nodes already in run order: one pass) changes no answer:
it equals the plain DFS it skips, on random `after` graphs with junk in them."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hwf_lsp.rules.graph import find_cycle, parent_map

IDS = ["a", "b", "c", "d", "e"]
junk = st.none() | st.booleans() | st.integers(-2, 5) | st.floats(allow_nan=True) \
    | st.text(max_size=4) | st.lists(st.integers(), max_size=2) | st.just({"k": 1})


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
    assert find_cycle(nodes, include_self_loops=self_loops) == dfs_find_cycle(nodes, self_loops)


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
