"""Lint's upstream question, asked on demand, answers what the whole-graph walk answers.

condition_warnings asks "does the condition's node run after its target?" through
`graph_view`'s parents, which read `after` lists only for the ids the walk visits.  Property: on
graphs with junk nodes, repeated ids, self-loops, cycles and dangling parents, that
equals membership in graph.ancestors (the full parent map).
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hwf_lsp.analysis.lint import graph_view
from hwf_lsp.rules.graph import ancestors, runs_after

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
