"""Issue 48, item 8: over the node cap the editor says the other rules wait, once, beside
the graph-shape error (the rulebook still judges nothing else there)."""

from __future__ import annotations

import json

import pytest
from support.designs import agent, design

from hwf_lsp.analysis.findings import check_text, rules_waiting
from hwf_lsp.rules.vocabulary import MAX_NODES
from hwf_lsp.server.convert import diagnostic
from hwf_lsp.server.documents import analyse


def text_with(count: int, *, broken_kind: bool = False) -> str:
    value = design(*(agent(f"a{i}", "start", prompt="p") for i in range(1, count)))
    if broken_kind:
        value["nodes"][0]["type"] = "triggerX"
    return json.dumps(value, indent=2)


def waiting(text: str) -> list[tuple[str, str, str]]:
    _, found = check_text(text)
    return [(f.rule, f.severity, text[f.start:f.end]) for f in rules_waiting(found)
            if f.severity != "error"]


NOTE = ("graph-shape", "information", '"nodes"')

# (case, node count, a rule broken on a node, the information diagnostics)
CASES = [
    ("at the cap: nothing waits", MAX_NODES, False, []),
    ("at the cap, a broken node: nothing waits", MAX_NODES, True, []),
    ("one over the cap", MAX_NODES + 1, False, [NOTE]),
    ("122 nodes and a broken trigger", 122, True, [NOTE]),
]


@pytest.mark.parametrize(("case", "count", "broken", "expected"), CASES,
                         ids=[c[0] for c in CASES])
def test_the_other_rules_wait(case, count, broken, expected):
    assert waiting(text_with(count, broken_kind=broken)) == expected


def test_the_editor_publishes_it_beside_the_error():
    text = text_with(122, broken_kind=True)
    analysis = analyse("file:///tmp/big.hwf.json", 1, text)
    findings = analysis.findings
    assert [(f.rule, f.severity) for f in findings] == [("graph-shape", "error"),
                                                         ("graph-shape", "information")]
    assert "wait until the design has at most 50 nodes" in findings[1].msg
    sent = [diagnostic(f, analysis.lines, "utf-16") for f in findings]
    assert [(d.severity, d.code, d.range) for d in sent] == [
        (1, "graph-shape", sent[0].range), (3, "graph-shape", sent[0].range)]  # error, information
