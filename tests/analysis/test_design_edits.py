"""The canvas's edits are minimal text edits (issue 18): a corpus of oddly formatted
designs times every edit command.

For each pair: every edit lies inside the member, entry or node it is about (so every
other byte of the file is unchanged), the result is valid JSON whose value is exactly
the intended change of the input's value, the graph shows it, and the inserted text
follows the file's own layout (line breaks, indent, one-line nodes).
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.text_edits import apply

from hwf_lsp.analysis import design_edits
from hwf_lsp.analysis.design import design_of
from hwf_lsp.analysis.findings import check_document
from hwf_lsp.analysis.graph_view import graph_view
from hwf_lsp.jsontext.jsontree import parse

REPO = Path(__file__).resolve().parents[2]

NODES = [
    {"id": "start", "type": "trigger", "title": "Début 🚀"},
    {"after": ["start"], "prompt": "Draft ✍️ the notes — «vite»", "id": "draft", "type": "agent"},
    {"id": "review", "type": "agent", "prompt": "Review 🧐 {draft}", "after": ["draft"],
     "retries": 1},
    {"id": "gate", "type": "condition", "expression": "out.review.score >= 7",
     "after": ["review"]},
    {"type": "approval", "id": "ok", "question": "Ship it? 🚢", "after": ["gate"]},
    {"id": "publish", "type": "output", "deliver": "notification", "after": ["ok", "draft"]},
    {"id": "lonely", "type": "agent", "prompt": "日本語のプロンプト"},
    {"id": "memo", "type": "note", "text": "🗒️ note", "color": "yellow"},
]
DESIGN = {"name": "odd", "nodes": NODES}


def one_line_nodes(design: dict[str, Any], indent: str = "  ", newline: str = "\n") -> str:
    nodes = f",{newline}{indent}{indent}".join(json.dumps(n, ensure_ascii=False) for n in
                                               design["nodes"])
    return (f'{{{newline}{indent}"name": {json.dumps(design["name"])},{newline}{indent}'
            f'"nodes": [{newline}{indent}{indent}{nodes}{newline}{indent}]{newline}}}{newline}')


CORPUS: dict[str, str] = {
    "2-space": json.dumps(DESIGN, indent=2, ensure_ascii=False) + "\n",
    "4-space": json.dumps(DESIGN, indent=4, ensure_ascii=False) + "\n",
    "tabs": json.dumps(DESIGN, indent="\t", ensure_ascii=False) + "\n",
    "crlf": json.dumps(DESIGN, indent=2, ensure_ascii=False).replace("\n", "\r\n") + "\r\n",
    "one-line-nodes": one_line_nodes(DESIGN),
    "one-line-nodes-crlf-tabs": one_line_nodes(DESIGN, "\t", "\r\n"),
    "compact": json.dumps(DESIGN, separators=(",", ":"), ensure_ascii=False),
    "ascii-escaped": json.dumps(DESIGN, indent=1),
}


# --- what each edit should do to the value ---------------------------------------------


def node(value: dict[str, Any], node_id: str) -> dict[str, Any]:
    return next(n for n in value["nodes"] if n["id"] == node_id)


def connected(source: str, target: str) -> Callable[[dict], None]:
    def change(value: dict) -> None:
        node(value, target).setdefault("after", []).append(source)
    return change


def disconnected(source: str, target: str) -> Callable[[dict], None]:
    def change(value: dict) -> None:
        entry = node(value, target)
        entry["after"] = [p for p in entry["after"] if p != source]
    return change


def deleted(node_id: str) -> Callable[[dict], None]:
    def change(value: dict) -> None:
        value["nodes"] = [n for n in value["nodes"] if n["id"] != node_id]
        for n in value["nodes"]:
            if "after" in n:
                n["after"] = [p for p in n["after"] if p != node_id]
    return change


def renamed(old: str, new: str) -> Callable[[dict], None]:
    def change(value: dict) -> None:
        for n in value["nodes"]:
            n["id"] = new if n["id"] == old else n["id"]
            if "after" in n:
                n["after"] = [new if p == old else p for p in n["after"]]
            if "expression" in n:
                n["expression"] = n["expression"].replace(f"out.{old}.", f"out.{new}.")
    return change


def field_set(node_id: str, name: str, field_value: Any) -> Callable[[dict], None]:
    def change(value: dict) -> None:
        node(value, node_id)[name] = field_value
    return change


def field_removed(node_id: str, name: str) -> Callable[[dict], None]:
    def change(value: dict) -> None:
        del node(value, node_id)[name]
    return change


def added(new_node: dict[str, Any], after_id: str | None) -> Callable[[dict], None]:
    def change(value: dict) -> None:
        ids = [n["id"] for n in value["nodes"]]
        at = ids.index(after_id) + 1 if after_id else len(ids)
        value["nodes"].insert(at, new_node)
    return change


# --- where each edit may touch the text ----------------------------------------------


def node_span(text: str, node_id: str) -> tuple[int, int]:
    info = design_of(parse(text)).by_id[node_id]
    return info.obj.start, info.obj.end


def gap_after(text: str, node_id: str | None) -> list[tuple[int, int]]:
    """Between a node's object and the next one (a new node goes there)."""
    design = design_of(parse(text))
    items = [info.obj for info in design.infos]
    index = design.by_id[node_id].index if node_id else len(items) - 1
    end = items[index + 1].start if index + 1 < len(items) else items[index].end
    return [(items[index].end, end)]


def nodes_naming(text: str, node_id: str) -> list[tuple[int, int]]:
    """The node itself (with a separator each side) and the objects of nodes after it."""
    design = design_of(parse(text))
    objects = [info.obj for info in design.infos]
    index = design.by_id[node_id].index
    spans = [(objects[index - 1].end if index else objects[index].start,
              objects[index + 1].start if index + 1 < len(objects) else objects[index].end)]
    spans += [(info.obj.start, info.obj.end) for info in design.infos
              if node_id in (info.data.get("after") or ())]
    return spans


def nodes_mentioning(text: str, node_id: str) -> list[tuple[int, int]]:
    design = design_of(parse(text))
    return [(info.obj.start, info.obj.end) for info in design.infos
            if info.id == node_id or node_id in (info.data.get("after") or ())
            or f"out.{node_id}." in str(info.data.get("expression"))]


Op = tuple[Callable[[Any], design_edits.DesignEdit], Callable[[dict], None],
           Callable[[str], list[tuple[int, int]]], str | None]

OPS: dict[str, Op] = {
    "connect-append": (lambda d: design_edits.connect(d, "start", "review"),
                       connected("start", "review"), lambda t: [node_span(t, "review")], None),
    "connect-creates-after": (lambda d: design_edits.connect(d, "draft", "lonely"),
                              connected("draft", "lonely"), lambda t: [node_span(t, "lonely")],
                              None),
    "disconnect-first-of-two": (lambda d: design_edits.disconnect(d, "ok", "publish"),
                                disconnected("ok", "publish"),
                                lambda t: [node_span(t, "publish")], None),
    "disconnect-last-of-two": (lambda d: design_edits.disconnect(d, "draft", "publish"),
                               disconnected("draft", "publish"),
                               lambda t: [node_span(t, "publish")], None),
    "disconnect-only": (lambda d: design_edits.disconnect(d, "start", "draft"),
                        disconnected("start", "draft"), lambda t: [node_span(t, "draft")], None),
    "add-agent-after-draft": (
        lambda d: design_edits.add_node(d, "agent", "draft"),
        added({"id": "agent1", "type": "agent", "prompt": "", "after": ["draft"]}, "draft"),
        lambda t: gap_after(t, "draft"), "agent1"),
    "add-condition-after-review": (
        lambda d: design_edits.add_node(d, "condition", "review"),
        added({"id": "condition1", "type": "condition", "expression": "out.review.",
               "after": ["review"]}, "review"),
        lambda t: gap_after(t, "review"), "condition1"),
    "add-output-after-gate": (
        lambda d: design_edits.add_node(d, "output", "gate"),
        added({"id": "output1", "type": "output", "deliver": "notification",
               "after": ["gate"]}, "gate"),
        lambda t: gap_after(t, "gate"), "output1"),
    "add-trigger-after-start": (
        lambda d: design_edits.add_node(d, "trigger", "start"),
        added({"id": "trigger", "type": "trigger"}, "start"),
        lambda t: gap_after(t, "start"), "trigger"),
    "add-note-at-the-end": (
        lambda d: design_edits.add_node(d, "note", None),
        added({"id": "note1", "type": "note", "text": ""}, None),
        lambda t: gap_after(t, None), "note1"),
    "delete-middle": (lambda d: design_edits.delete_node(d, "draft"), deleted("draft"),
                      lambda t: nodes_naming(t, "draft"), None),
    "delete-first": (lambda d: design_edits.delete_node(d, "start"), deleted("start"),
                     lambda t: nodes_naming(t, "start"), None),
    "delete-last": (lambda d: design_edits.delete_node(d, "memo"), deleted("memo"),
                    lambda t: nodes_naming(t, "memo"), None),
    "rename": (lambda d: design_edits.rename_node(d, "review", "critique"),
               renamed("review", "critique"), lambda t: nodes_mentioning(t, "review"),
               "critique"),
    "set-replaces": (lambda d: design_edits.set_field(d, "draft", "prompt", "New ✨ \"quoted\""),
                     field_set("draft", "prompt", "New ✨ \"quoted\""),
                     lambda t: [node_span(t, "draft")], None),
    "set-inserts": (lambda d: design_edits.set_field(d, "lonely", "retries", 2),
                    field_set("lonely", "retries", 2), lambda t: [node_span(t, "lonely")], None),
    "set-inserts-object": (
        lambda d: design_edits.set_field(d, "ok", "options", ["oui", "non 🙅"]),
        field_set("ok", "options", ["oui", "non 🙅"]), lambda t: [node_span(t, "ok")], None),
    "remove-first-member": (lambda d: design_edits.remove_field(d, "draft", "after"),
                            field_removed("draft", "after"), lambda t: [node_span(t, "draft")],
                            None),
    "remove-middle-member": (lambda d: design_edits.remove_field(d, "memo", "text"),
                             field_removed("memo", "text"), lambda t: [node_span(t, "memo")],
                             None),
    "remove-last-member": (lambda d: design_edits.remove_field(d, "review", "retries"),
                           field_removed("review", "retries"),
                           lambda t: [node_span(t, "review")], None),
}


def inside(edit: tuple[int, int, str], spans: list[tuple[int, int]]) -> bool:
    start, end, _ = edit
    return any(low <= start and end <= high for low, high in spans)


def layout_problems(original: str, result: str, style: str) -> list[str]:
    """How the result's layout departs from the style of its corpus entry."""
    problems = []
    if "\r\n" in original and re.search(r"(?<!\r)\n", result):
        problems.append("a bare LF in a CRLF file")
    if "\n" not in original and "\n" in result:
        problems.append("a line break in a one-line file")
    indents = {line[: len(line) - len(line.lstrip(" \t"))]
               for line in result.splitlines() if line.strip()}
    if style == "tabs" and any(" " in indent for indent in indents):
        problems.append("spaces in a tab-indented file")
    for unit in ((4,) if style == "4-space" else (2,) if style == "2-space" else ()):
        if any(len(indent) % unit for indent in indents):
            problems.append(f"an indent that is not a multiple of {unit}")
    if style.startswith("one-line-nodes"):
        for info in design_of(parse(result)).infos:
            if "\n" in result[info.obj.start:info.obj.end]:
                problems.append(f"node {info.id} spans lines")
    if style == "compact" and result != json.dumps(json.loads(result), separators=(",", ":"),
                                                   ensure_ascii=False):
        problems.append("not compact")
    return problems


def check(style: str, op_name: str) -> None:
    text = CORPUS[style]
    compute, change, allowed, new_id = OPS[op_name]
    done = compute(parse(text))
    assert done.id == new_id
    spans = allowed(text)
    outside = [e for e in done.edits if not inside(e, spans)]
    assert not outside, f"edits outside {spans}: {outside}"
    result = apply(text, done.edits)
    expected = copy.deepcopy(json.loads(text))
    change(expected)
    assert json.loads(result) == expected
    assert layout_problems(text, result, style) == []


@pytest.mark.parametrize("op_name", sorted(OPS))
@pytest.mark.parametrize("style", sorted(CORPUS))
def test_every_edit_is_minimal_and_does_what_it_says(style: str, op_name: str) -> None:
    check(style, op_name)


def test_the_review_flow_example_keeps_its_layout() -> None:
    """The example mixes a one-line trigger with multi-line nodes: a new agent is laid
    out like the agents, a new trigger like the trigger."""
    text = (REPO / "examples" / "review-flow.hwf.json").read_text(encoding="utf-8")
    agent = apply(text, design_edits.add_node(parse(text), "agent", "start").edits)
    assert '  {"id": "start", "type": "trigger", "title": "Release branch cut"},\n    {\n' \
           '      "id": "agent1",\n      "type": "agent",\n      "prompt": "",\n' \
           '      "after": ["start"]\n    },\n    {\n      "id": "draft"' in agent
    trigger = apply(text, design_edits.add_node(parse(text), "trigger", "start").edits)
    assert '"Release branch cut"},\n    {"id": "trigger", "type": "trigger"},\n    {\n' in trigger


@pytest.mark.parametrize(("source", "target"), [("publish", "draft"), ("draft", "publish"),
                                                ("review", "review")])
def test_connect_refuses_cycles_repeats_and_self_loops(source: str, target: str) -> None:
    with pytest.raises(design_edits.DesignEditError):
        design_edits.connect(parse(CORPUS["2-space"]), source, target)


@pytest.mark.parametrize(("call", "message"), [
    (lambda d: design_edits.connect(d, "memo", "lonely"), "is a note"),
    (lambda d: design_edits.connect(d, "draft", "start"), "is a trigger"),
    (lambda d: design_edits.connect(d, "nope", "draft"), "'nope' is not a node"),
    (lambda d: design_edits.disconnect(d, "review", "draft"), "does not run after"),
    (lambda d: design_edits.add_node(d, "robot", None), "'robot' is not a kind"),
    (lambda d: design_edits.add_node(d, "agent", "nope"), "'nope' is not a node"),
    (lambda d: design_edits.rename_node(d, "draft", "review"), "already exists"),
    (lambda d: design_edits.rename_node(d, "draft", "two words"), "not a usable id"),
    (lambda d: design_edits.set_field(d, "draft", "id", "x"), "renaming the node"),
    (lambda d: design_edits.set_field(d, "draft", "retries", float("nan")), "not JSON"),
    (lambda d: design_edits.remove_field(d, "draft", "id"), "every node has an id"),
    (lambda d: design_edits.remove_field(d, "draft", "type"), "every node has a type"),
    (lambda d: design_edits.remove_field(d, "draft", "prompt"), "needs its prompt"),
    (lambda d: design_edits.remove_field(d, "gate", "expression"), "needs its expression"),
    (lambda d: design_edits.remove_field(d, "draft", "retries"), "has no field 'retries'"),
])
def test_refusals_say_why(call: Callable[[Any], Any], message: str) -> None:
    with pytest.raises(design_edits.DesignEditError, match=re.escape(message)):
        call(parse(CORPUS["2-space"]))


def test_broken_json_is_not_edited() -> None:
    text = CORPUS["2-space"].replace('"review",', '"review"', 1)
    with pytest.raises(design_edits.DesignEditError, match=r"not valid JSON .* at line \d+"):
        design_edits.connect(parse(text), "start", "review")


def test_after_connect_the_graph_has_the_edge_and_no_new_defects() -> None:
    text = CORPUS["crlf"]
    result = apply(text, design_edits.connect(parse(text), "start", "review").edits)
    doc = parse(result)
    view = graph_view(doc, check_document(doc), lambda s, e: {"start": s, "end": e})
    assert {"from": "start", "to": "review"} in [
        {"from": e["from"], "to": e["to"]} for e in view["edges"]]
    before = parse(text)
    assert len(check_document(doc)) == len(check_document(before))


def test_add_node_picks_a_fresh_id() -> None:
    text = CORPUS["2-space"]
    first = apply(text, design_edits.add_node(parse(text), "agent", None).edits)
    second = design_edits.add_node(parse(first), "agent", None)
    assert second.id == "agent2"


def test_add_node_into_an_empty_nodes_list() -> None:
    text = '{"name": "e", "nodes": []}'
    done = design_edits.add_node(parse(text), "trigger", None)
    assert apply(text, done.edits) == '{"name": "e", "nodes": [{"id": "trigger", "type": "trigger"}]}'


def test_remove_field_removes_a_duplicate_key_too() -> None:
    """Both copies go: removing only the one that counts would bring the ignored one back."""
    text = '{"name": "d", "nodes": [{"id": "t", "type": "trigger", "title": "a", "title": "b"}]}'
    done = design_edits.remove_field(parse(text), "t", "title")
    assert apply(text, done.edits) == '{"name": "d", "nodes": [{"id": "t", "type": "trigger"}]}'
