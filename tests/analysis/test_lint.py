"""Lint's upstream question, asked on demand, answers what the whole-graph walk answers.

condition_warnings asks "does the condition's node run after its target?" through
`graph_view`'s parents, which read `after` lists only for the ids the walk visits.  Property: on
graphs with junk nodes, repeated ids, self-loops, cycles and dangling parents, that
equals membership in graph.ancestors (the full parent map).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hwf_lsp.analysis import lint
from hwf_lsp.analysis.jsontree import parse
from hwf_lsp.analysis.lint import graph_view, node_warnings
from hwf_lsp.workflow.graph import ancestors, runs_after

IDS = ["a", "b", "c", "d", "e", " ", ""]
node = st.one_of(
    st.fixed_dictionaries({"id": st.sampled_from(IDS)}, optional={
        "after": st.one_of(st.lists(st.one_of(st.sampled_from([*IDS, "ghost"]), st.integers()),
                                    max_size=4), st.sampled_from(["a", None])),
        "type": st.sampled_from(["agent", "note", "trigger", "condition"]),
    }),
    st.sampled_from([None, 5, "x", {"after": ["a"]}]),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(node, max_size=8))
def test_on_demand_upstream_equals_ancestors(nodes):
    _, parents = graph_view(nodes)
    for ident in [*IDS, "ghost"]:
        up = ancestors(nodes, ident)
        for target in [*IDS, "ghost"]:
            assert runs_after(parents, ident, target) is (target in up), (ident, target)


def test_node_warnings_judge_again_only_the_nodes_that_are_new_objects(monkeypatch):
    """In the same tree, a node that is the same object at the same index keeps its
    warnings; a new object (even an equal one) and a node at another index are judged."""
    doc = parse('{"nodes": [{"id": "a", "type": "agent", "promt": "x"}, '
                '{"id": "b", "type": "approval", "options": ["yes"]}, {"id": "c"}]}')
    nodes = doc.to_python()["nodes"]
    judged = []
    own = lint._own_warnings
    monkeypatch.setattr(lint, "_own_warnings",
                        lambda d, index, node: judged.append(index) or own(d, index, node))
    first = node_warnings(doc, nodes)
    assert [[w.rule for w in ws] for ws in first] == [["unknown-field"], ["no-reject"], []]
    replaced = [nodes[0], dict(nodes[1]), nodes[2]]
    assert node_warnings(doc, replaced) == first
    assert node_warnings(doc, [nodes[1], nodes[0]]) == [[], []]  # moved: judged again
    assert judged == [0, 1, 2, 1, 0, 1]
