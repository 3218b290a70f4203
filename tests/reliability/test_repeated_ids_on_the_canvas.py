"""A design that repeats an id is drawn whole (issue 45, an earlier round's failure).

`t, a, a, a#2`: the canvas drew 3 of the 4 nodes: the graph (`hwf.graph`, the dashboard)
left the repeated `a` out, so its identity defect had no node to show on.  Now every node
with a usable id is drawn, the repeat with its defect; the webview keys it apart from a
real `a#2` (`graphModel.flowIds`, tested in canvasRobust.test.ts), and edges keep to the
first node of an id, the one the rulebook's other checks read.
"""

from __future__ import annotations

import json

import pytest

from hwf_lsp.analysis.findings import check_text
from hwf_lsp.analysis.graph_view import graph_view


def _graph(nodes: list[dict]) -> dict:
    doc, findings = check_text(json.dumps({"name": "d", "nodes": nodes}))
    return graph_view(doc, findings, lambda start, end: [start, end])


T = {"id": "t", "type": "trigger"}


def agent(node_id: str, *after: str) -> dict:
    return {"id": node_id, "type": "agent", "prompt": "p", "after": list(after or ["t"])}


@pytest.mark.parametrize(("nodes", "ids"), [
    ([T, agent("a"), agent("a"), agent("a#2")], ["t", "a", "a", "a#2"]),
    ([T, agent("a"), agent("a#2"), agent("a"), agent("a")], ["t", "a", "a#2", "a", "a"]),
    ([T, agent("x"), agent("x", "x")], ["t", "x", "x"]),
])
def test_every_node_with_an_id_is_drawn(nodes, ids):
    graph = _graph(nodes)
    assert [n["id"] for n in graph["nodes"]] == ids
    repeats = [n for i, n in enumerate(graph["nodes"]) if n["id"] in ids[:i]]
    for node in repeats:  # each repeat carries its own identity defect
        assert any(d["code"] == "identity" for d in node["defects"]), node["defects"]
    spans = [tuple(n["range"]) for n in graph["nodes"]]
    assert len(set(spans)) == len(spans)  # each drawn node is its own object


def test_edges_keep_to_the_first_node_of_an_id():
    graph = _graph([T, agent("a"), agent("a"), agent("b", "a")])
    assert [(e["from"], e["to"]) for e in graph["edges"]] == [("t", "a"), ("a", "b")]
