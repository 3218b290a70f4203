"""The canvas's commands end to end (issue 18): `hwf.graph` and every `hwf.edit.*`, over
stdio, as VS Code (documentChanges, UTF-16) and as Neovim (plain changes, UTF-8).

The client here applies the server's `workspace/applyEdit` as an editor does: it edits
its copy of the text with the ranges it got, sends didChange, and answers applied.
The result must be exactly what the pure edit (analysis/design_edits.py) gives on the
same text, so the positions on the wire are right in every encoding.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from typing import Any

import pytest
from helpers_lsp import (
    WORKSPACE,
    apply_edits,
    change_doc,
    design_uri,
    eventually,
    make_client,
    open_doc,
    server_config,
    span_range,
    write_run,
)
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import ClientServerConfig, LanguageClient
from runs_helpers import execute
from support.lsp import CLIENTS, client_fixture

from hwf_lsp.analysis import design_edits
from hwf_lsp.analysis.design import design_of
from hwf_lsp.jsontext.jsontree import parse
from hwf_lsp.server.features.canvas import CANVAS_COMMANDS

pytestmark = pytest.mark.asyncio(loop_scope="module")


def editor_client() -> LanguageClient:
    client = make_client()
    client.texts = {}
    client.edits_received = []

    @client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        client.edits_received.append(params)
        edit = params.edit
        if edit.document_changes:
            (change,) = edit.document_changes
            uri, edits = change.text_document.uri, change.edits
            if change.text_document.version != client.versions.get(uri):
                return types.ApplyWorkspaceEditResult(applied=False,
                                                      failure_reason="version moved on")
        else:
            ((uri, edits),) = edit.changes.items()
        client.texts[uri] = apply_edits(client.texts[uri], edits, client.encoding)
        change_doc(client, uri, client.texts[uri])
        return types.ApplyWorkspaceEditResult(applied=True)

    return client


base = server_config()
client = client_fixture(ClientServerConfig(server_command=base.server_command,
                                           client_factory=editor_client,
                                           server_env=base.server_env),
                        WORKSPACE, clients=CLIENTS)

DESIGN = {"name": "canvas-e2e", "nodes": [
    {"id": "start", "type": "trigger", "title": "Début 🚀🚀"},
    {"id": "draft", "type": "agent", "title": "✍️ ébauche", "prompt": "Écris 📝", "after": ["start"]},
    {"id": "review", "type": "agent", "prompt": "Relis 🧐", "after": ["draft"]},
    {"id": "gate", "type": "condition", "expression": "out.review.score >= 7",
     "after": ["review"]},
    {"id": "ok", "type": "approval", "question": "Publier ? 🚢", "after": ["gate", "draft"]},
    {"id": "memo", "type": "note", "text": "😀 note"},
]}
TEXT = json.dumps(DESIGN, indent=2, ensure_ascii=False).replace(
    '{\n      "id": "start",\n      "type": "trigger",\n      "title": "Début 🚀🚀"\n    }',
    '{"id": "start", "type": "trigger", "title": "Début 🚀🚀"}')
_numbers = itertools.count()


def fresh(client: LanguageClient, text: str = TEXT) -> str:
    uri = design_uri(f"canvas-{next(_numbers)}-{client.client_name}")
    client.texts[uri] = text
    open_doc(client, uri, text)
    return uri


async def graph(client: LanguageClient, uri: str) -> dict[str, Any]:
    return await execute(client, "hwf.graph", uri)


def as_dict(value: Any) -> Any:
    """A result as plain JSON (pygls may hand JSON objects over as named tuples)."""
    if hasattr(value, "_asdict"):
        return {key: as_dict(item) for key, item in value._asdict().items()}
    if isinstance(value, dict):
        return {key: as_dict(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [as_dict(item) for item in value]
    return value


async def test_graph_ranges_are_exact_on_non_ascii_text(client: LanguageClient) -> None:
    provider = client.init_result.capabilities.execute_command_provider
    assert set(CANVAS_COMMANDS) <= set(provider.commands)
    uri = fresh(client)
    answer = as_dict(await graph(client, uri))
    assert (answer["uri"], answer["version"], answer["stale"], answer["name"]) == (
        uri, 1, False, "canvas-e2e")
    doc = parse(TEXT)
    design = design_of(doc)
    for node in answer["nodes"]:
        info = design.by_id[node["id"]]
        id_value = info.member("id").value
        for key, (start, end) in (("range", (info.obj.start, info.obj.end)),
                                  ("id_range", (id_value.start, id_value.end))):
            expected = span_range(TEXT, start, end, client.encoding)
            assert node[key] == json.loads(json.dumps({
                "start": {"line": expected.start.line, "character": expected.start.character},
                "end": {"line": expected.end.line, "character": expected.end.character}}))
    start_node = answer["nodes"][0]
    assert start_node["id_range"]["start"]["line"] == start_node["range"]["start"]["line"]
    at = TEXT.index('"start", "type"')
    line_start = TEXT.rindex("\n", 0, at) + 1
    assert start_node["id_range"]["start"]["character"] == at - line_start  # ASCII before it
    edge = next(e for e in answer["edges"] if (e["from"], e["to"]) == ("draft", "ok"))
    entry = TEXT.index('"draft"', TEXT.index('"gate",\n'))
    expected = span_range(TEXT, entry, entry + len('"draft"'), client.encoding)
    assert edge["range"]["end"]["character"] == expected.end.character
    assert [n["plan_index"] for n in answer["nodes"]] == [None, 1, 2, 3, 4, None]


async def test_graph_on_broken_json_is_the_last_good_one_marked_stale(
        client: LanguageClient) -> None:
    uri = fresh(client)
    good = as_dict(await graph(client, uri))
    version = change_doc(client, uri, TEXT.replace('"review",', '"review"', 1))
    stale = as_dict(await graph(client, uri))
    assert (stale["stale"], stale["version"]) == (True, version)
    assert stale["nodes"] == good["nodes"] and stale["edges"] == good["edges"]
    assert stale["defects"] and {d["code"] for d in stale["defects"]} == {"json-syntax"}
    change_doc(client, uri, TEXT)
    assert as_dict(await graph(client, uri))["stale"] is False


async def test_graph_shows_the_diagnostics_on_their_nodes(client: LanguageClient) -> None:
    broken = TEXT.replace('"prompt": "Relis 🧐"', '"prompt": "Relis 🧐", "retries": 9')
    uri = fresh(client, broken)
    answer = as_dict(await graph(client, uri))
    review = next(n for n in answer["nodes"] if n["id"] == "review")
    assert [(d["code"], d["severity"]) for d in review["defects"]] == [("retries", 1)]


EDITS: list[tuple[str, list[Any], Any, str | None]] = [
    ("hwf.edit.connect", ["start", "review"],
     lambda d: design_edits.connect(d, "start", "review"), None),
    ("hwf.edit.disconnect", ["draft", "ok"],
     lambda d: design_edits.disconnect(d, "draft", "ok"), None),
    ("hwf.edit.addNode", ["agent", "draft"],
     lambda d: design_edits.add_node(d, "agent", "draft"), "agent1"),
    ("hwf.edit.addNode", ["note", None], lambda d: design_edits.add_node(d, "note", None),
     "note1"),
    ("hwf.edit.deleteNode", ["draft"], lambda d: design_edits.delete_node(d, "draft"), None),
    ("hwf.edit.renameNode", ["review", "critique"],
     lambda d: design_edits.rename_node(d, "review", "critique"), "critique"),
    ("hwf.edit.setField", ["gate", "expression", "out.review.score >= 9 "],
     lambda d: design_edits.set_field(d, "gate", "expression", "out.review.score >= 9 "),
     None),
    ("hwf.edit.setField", ["memo", "text", "🎉 fête"],
     lambda d: design_edits.set_field(d, "memo", "text", "🎉 fête"), None),
    ("hwf.edit.removeField", ["draft", "title"],
     lambda d: design_edits.remove_field(d, "draft", "title"), None),
    ("hwf.edit.removeField", ["start", "title"],
     lambda d: design_edits.remove_field(d, "start", "title"), None),
]


@pytest.mark.parametrize(("command", "args", "pure", "new_id"), EDITS,
                         ids=[f"{c}-{a[0]}" for c, a, _, _ in EDITS])
async def test_each_edit_arrives_as_apply_edit_and_gives_the_pure_result(
        client: LanguageClient, command: str, args: list[Any], pure: Any,
        new_id: str | None) -> None:
    uri = fresh(client)
    before = len(client.edits_received)
    started = time.perf_counter()
    answer = as_dict(await execute(client, command, uri, *args))
    elapsed = time.perf_counter() - started
    assert answer == {"applied": True, "id": new_id}
    (received,) = client.edits_received[before:]
    if client.client_name == "visual-studio-code":
        (change,) = received.edit.document_changes
        assert (change.text_document.uri, change.text_document.version) == (uri, 1)
    else:
        assert list(received.edit.changes) == [uri]
    expected = TEXT
    for start, end, new in sorted(pure(parse(TEXT)).edits, reverse=True):
        expected = expected[:start] + new + expected[end:]
    assert client.texts[uri] == expected
    json.loads(client.texts[uri])
    after = as_dict(await graph(client, uri))
    assert after["version"] == 2 and after["stale"] is False
    assert elapsed < 2.0


async def test_a_refused_edit_is_invalid_params_and_sends_nothing(
        client: LanguageClient) -> None:
    uri = fresh(client)
    before = len(client.edits_received)
    for command, args, message in [
        ("hwf.edit.connect", ["ok", "draft"], "would make a cycle"),
        ("hwf.edit.connect", ["draft", "review"], "already runs after"),
        ("hwf.edit.addNode", ["robot", None], "is not a kind"),
        ("hwf.edit.setField", ["draft", "prompt"], "missing value"),
        ("hwf.edit.renameNode", ["draft"], "missing new_id"),
        ("hwf.edit.removeField", ["draft", "prompt"], "needs its prompt"),
        ("hwf.edit.removeField", ["draft", "retries"], "has no field 'retries'"),
    ]:
        with pytest.raises(JsonRpcException) as caught:
            await execute(client, command, uri, *args)
        assert caught.value.code == -32602, (command, caught.value)
        assert message in str(caught.value) and command in str(caught.value)
    assert client.edits_received[before:] == []
    await asyncio.sleep(0.05)
    shown = [m.message for m in client.messages if m.type == types.MessageType.Error]
    assert not any(m.startswith("hwf.edit.") for m in shown)  # the canvas says it, once


async def test_graph_of_a_design_that_is_not_open_reads_the_file(
        client: LanguageClient) -> None:
    path = WORKSPACE / f"closed-{client.client_name}.hwf.json"
    path.write_text(TEXT, encoding="utf-8")
    answer = as_dict(await graph(client, path.as_uri()))
    assert (answer["version"], answer["stale"], len(answer["nodes"])) == (None, False, 6)
    with pytest.raises(JsonRpcException) as caught:
        await execute(client, "hwf.edit.deleteNode", path.as_uri(), "draft")
    assert caught.value.code == -32602 and "not open" in str(caught.value)
    with pytest.raises(JsonRpcException) as caught:
        await execute(client, "hwf.graph", (WORKSPACE / "package.json").as_uri())
    assert caught.value.code == -32602 and "is not a design" in str(caught.value)


async def test_graph_latency_on_a_50_node_design_after_an_edit(client: LanguageClient) -> None:
    """didChange then hwf.graph, round trip over stdio (what the canvas asks on every edit)."""
    nodes = [{"id": "t", "type": "trigger"}] + [
        {"id": f"s{i}", "type": "agent", "title": f"Step {i} ✨", "prompt": f"Do {i} " * 40,
         "after": [f"s{i - 1}" if i > 1 else "t"] + ([f"s{i - 2}"] if i > 2 else [])}
        for i in range(1, 50)]
    text = json.dumps({"name": "fifty", "nodes": nodes}, indent=2, ensure_ascii=False)
    uri = fresh(client, text)
    await graph(client, uri)
    times = []
    for i in range(30):
        version = change_doc(client, uri, text.replace("Do 7 ", f"Do 7 v{i} ", 1))
        started = time.perf_counter()
        answer = await graph(client, uri)
        times.append((time.perf_counter() - started) * 1000)
        assert as_dict(answer)["version"] == version
    times.sort()
    p50, p90 = times[len(times) // 2], times[int(len(times) * 0.9)]
    print(f"\nhwf.graph after an edit, 50 nodes, {client.client_name}: "
          f"p50 {p50:.1f} ms, p90 {p90:.1f} ms")
    assert len(as_dict(answer)["nodes"]) == 50 and len(as_dict(answer)["edges"]) == 96
    assert p50 < 100


async def test_complete_expression_offers_what_the_condition_string_offers(
        client: LanguageClient) -> None:
    """The canvas inspector's completion (`hwf.completeExpression`): upstream ids after
    `out.`, the newest run's paths, operators; UTF-16 ranges in the expression."""
    uri = fresh(client, TEXT.replace('"canvas-e2e"', '"canvas-complete"'))
    ids = as_dict(await execute(client, "hwf.completeExpression", uri, "gate", "out.", 4))
    assert [i["label"] for i in ids["items"]][:2] == ["review", "draft"]  # the parent first
    assert {(i["start"], i["end"], i["text"]) for i in ids["items"][:1]} == {(4, 4, "review.")}
    write_run("canvas-complete", "c0de00000001", {"review": {"score": 9, "verdict": "ok"}})
    paths = as_dict(await eventually(
        lambda: execute(client, "hwf.completeExpression", uri, "gate", "out.review.", 11),
        lambda answer: len(as_dict(answer)["items"]) == 2))
    assert [(i["label"], i["detail"]) for i in paths["items"]] == [("score", "9"),
                                                                 ("verdict", '"ok"')]
    ops = as_dict(await execute(client, "hwf.completeExpression", uri, "gate",
                                "out.review.score ", 17))
    assert [i["label"] for i in ops["items"]] == ["==", "!=", "<", "<=", ">", ">="]
    for args, message in [(["gate", "out.", 9], "outside the expression"),
                          (["gate", "out.", "4"], "offset must be a whole number"),
                          (["gate", 3, 0], "expression must be a string")]:
        with pytest.raises(JsonRpcException) as caught:
            await execute(client, "hwf.completeExpression", uri, *args)
        assert caught.value.code == -32602 and message in str(caught.value)
