"""Where a design test file names a node or its design (analysis/test_file_names.py)."""

from __future__ import annotations

import json

import pytest

from hwf_lsp.analysis.test_file_names import design_name_at, design_reference_span, node_id_spans
from hwf_lsp.jsontext.jsontree import parse

DESIGN = {"name": "flow", "nodes": [
    {"id": "t", "type": "trigger"},
    {"id": "review", "type": "agent", "prompt": "p", "after": ["t"]},
    {"id": "ok", "type": "condition", "expression": "out.review.score > 1", "after": ["review"]},
    {"id": "sign", "type": "approval", "after": ["ok"]},
    {"id": "post", "type": "output", "deliver": True, "after": ["sign"]},
]}


def case(**fields) -> str:
    return json.dumps({"design": "flow.hwf.json", "cases": [{"name": "c", **fields}]})


CASES = [
    ("an agents key", case(agents={"review": {"output": "x"}}), "review", ["review"]),
    ("an answers key", case(answers={"sign": "approve"}), "sign", ["sign"]),
    ("a failing_deliveries item", case(failing_deliveries=["post"]), "post", ["post"]),
    ("expect steps, outputs, delivered",
     case(expect={"steps": {"review": "done"}, "outputs": {"review": 1},
                  "delivered": {"post": True}}), "review", ["review", "review"]),
    ("an output's gathered upstream keys",
     case(expect={"outputs": {"post": {"review": 1, "sign": 2}}}), "review", ["review"]),
    ("a node's output data keeps its own keys",
     case(expect={"outputs": {"ok": {"review": 1}}}), "review", []),
    ("values and names that only look alike stay",
     case(agents={"reviewer": {"output": "review"}}, expect={"status": "review"}), "review", []),
    ("an id spelled with an escape stays",
     case(agents={"\\u0072eview": {"output": "x"}}).replace("\\\\u0072", "\\u0072"), "review", []),
    ("broken JSON still gives what it can",
     case(agents={"review": {"output": "x"}})[:-5], "review", ["review"]),
]


@pytest.mark.parametrize(("text", "node_id", "expected"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_node_id_spans(text: str, node_id: str, expected: list[str]) -> None:
    spans = node_id_spans(parse(text), DESIGN, node_id)
    assert [text[start:end] for start, end in spans] == expected
    assert spans == sorted(spans)


def test_design_reference_and_name() -> None:
    text = case()
    start, end, value = design_reference_span(parse(text))
    assert (text[start:end], value) == ("flow.hwf.json", "flow.hwf.json")
    design = json.dumps(DESIGN)
    inside = design.index('"flow"') + 2
    assert design_name_at(parse(design), inside)[2] == "flow"
    assert design_name_at(parse(design), design.index('"name"') + 1) is None
