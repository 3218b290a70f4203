"""`RememberedEdges` changes no answer: after any node list, the children map and the
`after` targets of the next one (sharing some of its node objects, copying others, or
changing their ids, types and `after` lists, `1 == True` traps included) are what
computing them afresh gives."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hwf_lsp.analysis.design import Design, _after_targets
from hwf_lsp.analysis.remembered_edges import RememberedEdges, same_edges
from hwf_lsp.workflow.graph import children_map

IDS = st.sampled_from(["a", "b", "c", "", " ", 1, True, None])
VALUES = IDS | st.sampled_from(["agent", "note", "trigger", 1.0, False])
NODES = st.lists(
    st.dictionaries(st.sampled_from(["id", "type", "after", "prompt"]),
                    VALUES | st.lists(VALUES, max_size=3), max_size=4)
    | VALUES, max_size=6)
COMPUTATIONS = {"children": children_map, "after targets": _after_targets}


def next_version(old: list, new: list, how: list[int]) -> list:
    """`new` with some items taken from `old` at the same index: the same object (0), a
    deep copy (1), or left as drawn (2)."""
    out = []
    for index, node in enumerate(new):
        choice = how[index] if index < len(how) else 2
        if index < len(old) and choice == 0:
            out.append(old[index])
        elif index < len(old) and choice == 1:
            out.append(copy.deepcopy(old[index]))
        else:
            out.append(node)
    return out


def check(versions: list[list]) -> None:
    remembered = RememberedEdges()
    for nodes in versions:
        for what, compute in COMPUTATIONS.items():
            assert remembered.answer(nodes, what, compute) == compute(nodes), (what, nodes)


@given(NODES, NODES, st.lists(st.integers(0, 2), max_size=6))
def test_remembered_edges_change_no_answer(first, second, how):
    check([first, next_version(first, second, how), first])


@pytest.mark.parametrize("versions", [
    [[{"id": "a", "after": ["b"]}, {"id": "b"}], [{"id": "a", "after": ["b"]}, {"id": "c"}]],
    [[{"id": "a"}, {"id": "b", "after": ["a"]}], [{"id": "a"}, {"id": "b", "after": [True]}]],
    [[{"id": 1}, {"id": "b", "type": "note"}], [{"id": True}, {"id": "b", "type": "agent"}]],
    [[{"id": "a"}], [{"id": "a"}, {"id": "b"}]],
])
def test_an_edge_that_changed_is_computed_again(versions):
    check(versions)


def test_same_edges_reads_ids_types_and_after_only():
    node = {"id": "a", "type": "agent", "after": ["s"], "prompt": "x"}
    assert same_edges([node], [{**node, "prompt": "y"}])
    assert not same_edges([node], [{**node, "after": ["s", "t"]}])
    assert not same_edges([{"id": "a", "after": [1]}], [{"id": "a", "after": [True]}])
    assert not same_edges([node], [node, node])


@given(NODES)
def test_a_node_looked_up_by_id_is_the_one_by_id_names(nodes):
    """`Design.info_of` (no NodeInfo built for the rest) finds the node `by_id` finds."""
    def seen(info):
        return None if info is None else (info.index, info.id, info.kind)

    for ident in ["a", "b", "c", "", " ", "ghost"]:
        lazily, built = Design(value={}, nodes=nodes), Design(value={}, nodes=nodes)
        assert seen(lazily.info_of(ident)) == seen(built.by_id.get(ident))
