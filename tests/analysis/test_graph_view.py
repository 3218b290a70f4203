"""The canvas's graph of a design (analysis/graph_view.py), on the text, no server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hwf_lsp.analysis.findings import check_document
from hwf_lsp.analysis.graph_view import graph_answer, graph_view, lsp_ranges
from hwf_lsp.jsontext.jsontree import parse
from hwf_lsp.jsontext.positions import LineIndex

REPO = Path(__file__).resolve().parents[2]
REVIEW_FLOW = (REPO / "examples" / "review-flow.hwf.json").read_text(encoding="utf-8")


def offsets(start: int, end: int) -> dict[str, int]:
    return {"start": start, "end": end}


def view_of(text: str) -> dict:
    doc = parse(text)
    return graph_view(doc, check_document(doc), offsets)


def test_the_review_flow_example() -> None:
    view = view_of(REVIEW_FLOW)
    assert view["name"] == "review-flow"
    assert [(n["id"], n["kind"], n["plan_index"]) for n in view["nodes"]] == [
        ("start", "trigger", None), ("draft", "agent", 1), ("review", "agent", 2),
        ("good-enough", "condition", 3), ("sign-off", "approval", 4), ("publish", "output", 5),
        ("how-it-works", "note", None)]
    assert [(e["from"], e["to"]) for e in view["edges"]] == [
        ("start", "draft"), ("draft", "review"), ("review", "good-enough"),
        ("good-enough", "sign-off"), ("sign-off", "publish"), ("draft", "publish"),
        ("review", "publish")]
    mains = {n["id"]: n["main"] for n in view["nodes"]}
    assert mains["start"] == {"field": "title", "value": "Release branch cut"}
    assert mains["good-enough"] == {"field": "expression", "value": "out.review.score >= 7"}
    assert mains["publish"] == {"field": "deliver", "value": "channel"}
    assert mains["how-it-works"]["field"] == "text"
    assert view["defects"] == [] and all(not n["defects"] for n in view["nodes"])


def test_spans_are_the_node_object_the_id_value_and_the_after_entry() -> None:
    view = view_of(REVIEW_FLOW)
    draft = next(n for n in view["nodes"] if n["id"] == "draft")
    start, end = draft["range"]["start"], draft["range"]["end"]
    assert json.loads(REVIEW_FLOW[start:end])["id"] == "draft"
    id_start, id_end = draft["id_range"]["start"], draft["id_range"]["end"]
    assert REVIEW_FLOW[id_start:id_end] == '"draft"'
    edge = view["edges"][0]
    assert REVIEW_FLOW[edge["range"]["start"]:edge["range"]["end"]] == '"start"'


BROKEN = {"name": "b", "nodes": [
    {"id": "a", "type": "agent", "prompt": "p", "retries": 9, "after": ["ghost", "memo"]},
    {"id": "b", "type": "agent", "prompt": "p", "after": ["a", "b"]},
    {"id": "a", "type": "agent", "prompt": "dup"},
    {"id": "memo", "type": "note", "text": "n"},
]}


@pytest.mark.parametrize(("owner", "code"), [
    ("node a", "retries"),          # a field of the node
    ("node a", "edges"),            # an entry naming no node: no edge to put it on
    ("edge memo->a", "edges"),      # an entry naming a note: drawn, with its defect
    ("edge b->b", "edges"),         # itself
    ("graph", "one-trigger"),       # no trigger at all
    ("node a (repeat)", "identity"),  # the second 'a' is drawn, with its defect
])
def test_findings_show_on_their_node_edge_or_the_graph(owner: str, code: str) -> None:
    view = view_of(json.dumps(BROKEN, indent=2))
    where = {"graph": view["defects"]}
    for node in view["nodes"]:
        key = f"node {node['id']}"
        where[f"{key} (repeat)" if key in where else key] = node["defects"]
    where |= {f"edge {e['from']}->{e['to']}": e["defects"] for e in view["edges"]}
    assert code in [d["code"] for d in where[owner]], where
    assert [n["id"] for n in view["nodes"]] == ["a", "b", "a", "memo"]


def test_severity_and_message_are_the_diagnostics() -> None:
    text = json.dumps({"name": "w", "nodes": [
        {"id": "t", "type": "trigger"}, {"id": "a", "type": "agent", "prompt": "p",
                                         "after": ["t"], "promt": "typo"}]})
    view = view_of(text)
    (warning,) = next(n for n in view["nodes"] if n["id"] == "a")["defects"]
    assert (warning["code"], warning["severity"]) == ("unknown-field", 2)
    assert "did you mean 'prompt'" in warning["message"]


def test_ranges_in_utf16_and_utf8_on_non_ascii_text() -> None:
    text = '{"name": "e", "nodes": [{"title": "🚀é", "id": "t", "type": "trigger"}]}'
    doc = parse(text)
    lines = LineIndex(text)
    node16 = graph_view(doc, [], lsp_ranges(lines, "utf-16"))["nodes"][0]
    node8 = graph_view(doc, [], lsp_ranges(lines, "utf-8"))["nodes"][0]
    id_at = text.index('"t"')
    assert node16["id_range"]["start"] == {"line": 0, "character": id_at + 1}  # 🚀: 2 units
    assert node8["id_range"]["start"] == {"line": 0, "character": id_at + 4}  # 🚀: 4 bytes, é: 2


def test_broken_json_answers_the_last_good_graph_marked_stale() -> None:
    good = parse(REVIEW_FLOW)
    first = graph_answer("u", 1, good, check_document(good), offsets)
    assert first["stale"] is False and first["version"] == 1
    broken_text = REVIEW_FLOW.replace('"draft",', '"draft"', 1)
    broken = parse(broken_text)
    second = graph_answer("u", 2, broken, check_document(broken), offsets, first)
    assert second["stale"] is True and second["version"] == 2
    assert second["nodes"] == first["nodes"] and second["edges"] == first["edges"]
    assert [d["code"] for d in second["defects"]] == ["json-syntax"] * len(second["defects"])
    assert second["defects"]
    nothing = graph_answer("u", 1, broken, check_document(broken), offsets)
    assert (nothing["stale"], nothing["nodes"], nothing["edges"]) == (True, [], [])


def test_each_node_carries_its_kinds_fields_typed_for_the_inspector() -> None:
    nodes = {n["id"]: n for n in view_of(REVIEW_FLOW)["nodes"]}
    fields = {node_id: {f["name"]: f for f in n["fields"]} for node_id, n in nodes.items()}
    assert list(fields["draft"]) == ["title", "prompt", "retries", "timeout_minutes",
                                     "profile", "model"]
    assert fields["draft"]["retries"]["type"] == "integer"
    assert (fields["draft"]["retries"]["minimum"], fields["draft"]["retries"]["maximum"]) == (0, 3)
    assert fields["draft"]["title"]["value"] == "Draft release notes"
    assert "value" not in fields["draft"]["model"]  # not set in the file
    assert fields["sign-off"]["on_timeout"]["enum"] == ["reject", "escalate"]
    assert fields["sign-off"]["options"]["type"] == "string-list"
    assert fields["publish"]["deliver"] == {"name": "deliver", "type": "enum",
                                            "enum": ["notification", "channel"],
                                            "value": "channel"}
    assert list(fields["start"]) == ["title"]
    assert "id" not in fields["draft"] and "after" not in fields["draft"]


def test_the_canvas_gets_each_field_capped_not_a_50_mb_prompt() -> None:
    """Issue 33: `hwf.graph` sent whole 50 MB strings to the webview on every edit."""
    huge = "word " * 10_000_000  # 50 MB
    design = {"name": "n" * 5000, "nodes": [
        {"id": "start", "type": "trigger", "title": "t" * 3000},
        {"id": "draft", "type": "agent", "after": ["start"], "prompt": huge},
        {"id": "x" * 2001, "type": "note", "text": "too long an id to show"},
        {"id": "gate", "type": "approval", "after": ["draft"], "question": "Ship?",
         "options": [f"option {i}" for i in range(1000)]},
    ]}
    view = view_of(json.dumps(design))
    assert len(json.dumps(view)) < 50_000
    by_id = {node["id"]: node for node in view["nodes"]}
    assert sorted(by_id) == ["draft", "gate", "start"]
    prompt = by_id["draft"]["main"]["value"]
    assert prompt.startswith("word word") and prompt.endswith(
        "… [50,000,000 characters, cut for the canvas]")
    assert len(prompt) < 2100 and by_id["draft"]["main"]["cut"] is True
    assert "cut" not in by_id["gate"]["main"]
    assert by_id["start"]["title"].endswith("[3,000 characters, cut for the canvas]")
    assert view["name"].endswith("[5,000 characters, cut for the canvas]")
    assert by_id["gate"]["main"]["value"] == "Ship?"
    assert {"from": "start", "to": "draft"} in [{k: e[k] for k in ("from", "to")}
                                                for e in view["edges"]]
    fields = {f["name"]: f for f in by_id["draft"]["fields"]}
    assert fields["prompt"]["cut"] is True and len(fields["prompt"]["value"]) < 2100
    assert by_id["start"]["fields"][0]["cut"] is True
    assert "cut" not in fields["retries"]
