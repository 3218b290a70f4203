"""Design test files (`*.hwf-test.json`) in the server, end to end, as VS Code and Neovim:
diagnostics at the exact key or value `hwf test` names (UTF-16 past an emoji too),
completion of node ids, options and step states, hover on a node id, and
`hwf.runDesignTests` with each difference's values and range."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from helpers_lsp import (
    WORKSPACE,
    accept_item,
    as_tuple,
    cursor,
    eventually,
    marked,
    open_doc,
    span_range,
    wait_published,
)
from lsprotocol import types
from support.design_tests import DESIGN_FILE, branching_design
from support.lsp import doc_id

pytestmark = pytest.mark.asyncio(loop_scope="module")

FOLDER = WORKSPACE / "design-tests"
FOLDER.mkdir(parents=True, exist_ok=True)
(FOLDER / DESIGN_FILE).write_text(json.dumps(branching_design()), encoding="utf-8")


def suite(case_text: str, design: str = DESIGN_FILE) -> str:
    """A test file of one case, written on one line (a marker's column is exact)."""
    return '{"design": "' + design + '", "cases": [\n  ' + case_text + "\n]}"


def case(body: str, name: str = "c") -> str:
    return '{"name": "' + name + '", ' + body + "}"


DONE = '"expect": {"status": "completed"}'
# (id, test file text with the «marked» span, words the message contains)
ERRORS = [
    ("unknown-node", suite(case('"agents": {«"wrok"»: {"output": "x"}}, ' + DONE)),
     "unknown node 'wrok'"),
    ("mock-not-an-agent", suite(case('"agents": {«"ok"»: {"output": "x"}}, ' + DONE)),
     "'ok' is an approval, not an agent"),
    ("answer-not-an-option", suite(case('"answers": {"ok": «"maybe"»}, ' + DONE)),
     "'maybe' is not an option of approval 'ok'"),
    ("result-unknown-key", suite(case('"agents": {"work": {«"outptu"»: "x"}}, ' + DONE)),
     "unknown key 'outptu' in a result"),
    ("missing-design", '{"design": «"nope.hwf.json"», "cases": [\n  ' + case(DONE) + "\n]}",
     "no design file 'nope.hwf.json'"),
    ("schema-case-key", suite(case('«"expcet"»: {"status": "completed"}, ' + DONE)),
     "unknown key 'expcet'"),
    ("schema-step-state", suite(case('"expect": {"steps": {"work": «"finished"»}}')),
     "'finished' is not a step state"),
    ("non-ascii", suite(case('"agents": {«"wörk"»: {"output": "x"}}, ' + DONE,
                                 name="🚀 façade")), "unknown node 'wörk'"),
]

_serial = iter(range(1, 10_000))


def file_uri(name: str) -> str:
    return (FOLDER / f"{name}-{next(_serial)}.hwf-test.json").as_uri()


@pytest.mark.parametrize(("name", "source", "words"), ERRORS, ids=[e[0] for e in ERRORS])
async def test_an_error_is_marked_where_hwf_test_places_it(client, name, source, words):
    text, [(start, end)] = marked(source)
    uri = file_uri(name)
    open_doc(client, uri, text)
    diagnostics = await wait_published(client, uri, 1)
    assert [d.message for d in diagnostics if words in d.message], diagnostics
    found = next(d for d in diagnostics if words in d.message)
    assert as_tuple(found.range) == as_tuple(span_range(text, start, end, client.encoding))
    assert found.code == "design-test"
    assert found.severity == types.DiagnosticSeverity.Error


async def test_the_non_ascii_case_counts_utf16_units(client):
    """The emoji before the key is 1 code point, 2 UTF-16 units, 4 UTF-8 bytes (ç: 1, 1,
    2): the column counts the negotiated units (VS Code: UTF-16; Neovim: UTF-8)."""
    text, [(start, _end)] = marked(ERRORS[-1][1])
    uri = file_uri("units")
    open_doc(client, uri, text)
    [found] = [d for d in await wait_published(client, uri, 1) if "wörk" in d.message]
    before = text[text.rindex("\n", 0, start) + 1:start]
    units = {"utf-16": len(before.encode("utf-16-le")) // 2, "utf-8": len(before.encode()),
             "utf-32": len(before)}
    assert units["utf-16"] == len(before) + 1
    assert found.range.start.character == units[client.encoding]


async def test_a_valid_test_file_has_no_diagnostics(client):
    text = suite(case('"agents": {"work": {"structured": {"score": 9}}}, '
                          '"answers": {"ok": "approve"}, ' + DONE))
    uri = file_uri("valid")
    open_doc(client, uri, text)
    assert await wait_published(client, uri, 1) == []


# (id, text with the cursor `|`, labels offered (exactly, in order), label to apply and
#  the text around it after applying)
COMPLETIONS = [
    ("agent-ids", suite(case('"agents": {"|"}, ' + DONE)), ["work"],
     ("work", '{"work":{"output":""}}')),
    ("approval-ids", suite(case('"answers": {"|"}, ' + DONE)), ["ok"], ("ok", '{"ok":""}')),
    ("options", suite(case('"answers": {"ok": "|"}, ' + DONE)), ["approve", "reject"],
     ("reject", '"ok":"reject"')),
    ("failing-outputs", suite(case('"failing_deliveries": ["|"], ' + DONE)), ["out"],
     ("out", '["out"]')),
    ("step-ids", suite(case('"expect": {"steps": {"|"}}')), ["work", "high", "ok", "out"],
     ("high", '{"high":""}')),
    ("run-statuses", suite(case('"expect": {"status": "|"}')),
     ["running", "awaiting_agent", "awaiting_approval", "completed", "failed", "cancelled"],
     ("failed", '"status":"failed"')),
    ("ids-already-named-left-out", suite(case('"expect": {"steps": {"work": "done", "|"}}')),
     ["high", "ok", "out"], ("out", '"out":""}')),
    ("step-states", suite(case('"expect": {"steps": {"work": "|"}}')),
     ["done", "reused", "answered", "rejected", "skipped", "waiting", "failed",
      "not delivered", "running", "not run"], ("not run", '"work":"not run"')),
]


async def complete_at(client, uri: str, text: str, offset: int) -> types.CompletionList:
    line = text.count("\n", 0, offset)
    col = span_range(text, offset, offset, client.encoding).start.character
    return await client.text_document_completion_async(types.CompletionParams(
        text_document=doc_id(uri), position=types.Position(line=line, character=col)))


@pytest.mark.parametrize(("name", "source", "labels", "apply"), COMPLETIONS,
                         ids=[c[0] for c in COMPLETIONS])
async def test_completion_offers_what_the_design_has(client, name, source, labels, apply):
    text, offset = cursor(source)
    uri = file_uri(name)
    open_doc(client, uri, text)
    await wait_published(client, uri, 1)
    result = await complete_at(client, uri, text, offset)
    items = sorted(result.items, key=lambda i: i.sort_text or i.label)
    assert [i.label for i in items] == labels
    label, around = apply
    after = accept_item(text, next(i for i in items if i.label == label), client.encoding)
    assert around in re.sub(r'("(?:[^"\\]|\\.)*")|\s+', lambda m: m.group(1) or "", after)
    json.loads(after)  # a node key completes to a whole member: valid JSON


async def hover_at(client, name: str, marked_text: str) -> tuple[str, types.Hover]:
    """Opens a test file with a cursor mark; its text and the hover answered there."""
    text, offset = cursor(marked_text)
    uri = file_uri(name)
    open_doc(client, uri, text)
    await wait_published(client, uri, 1)
    line = text.count("\n", 0, offset)
    col = span_range(text, offset, offset, client.encoding).start.character
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=doc_id(uri), position=types.Position(line=line, character=col)))
    assert hover is not None
    return text, hover


async def test_hover_on_a_node_id_shows_the_node(client):
    text, hover = await hover_at(client, "hover", suite(case('"answers": {"o|k": "approve"}, ' + DONE)))
    assert "ok" in hover.contents.value and "approval" in hover.contents.value
    assert "ok ok?" in hover.contents.value  # the question, its main field
    key = text.index('"ok"')
    assert as_tuple(hover.range) == as_tuple(span_range(text, key, key + 4, client.encoding))


async def test_run_design_tests_answers_each_case_and_each_difference(client):
    passing = case('"agents": {"work": {"structured": {"score": 9}}}, '
                   '"answers": {"ok": "approve"}, ' + DONE, name="passes")
    failing = case('"agents": {"work": {"structured": {"score": 1}}}, '
                   '"expect": {"status": "completed", "steps": {"high": «"done"»}}',
                   name="fails")
    text, [(start, end)] = marked(suite(passing + ",\n  " + failing))
    uri = file_uri("run")
    open_doc(client, uri, text)
    answer = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="hwf.runDesignTests", arguments=[uri]))
    assert answer["errors"] == [] and answer["design"] == DESIGN_FILE
    assert [(c["name"], c["passed"]) for c in answer["cases"]] == [("passes", True),
                                                                    ("fails", False)]
    [difference] = answer["cases"][1]["differences"]
    assert (difference["part"], difference["node"], difference["expected"],
            difference["actual"]) == ("steps", "high", "done", "skipped")
    rng = span_range(text, start, end, client.encoding)
    assert difference["range"] == {
        "start": {"line": rng.start.line, "character": rng.start.character},
        "end": {"line": rng.end.line, "character": rng.end.character}}
    assert answer["cases"][1]["range"]["start"]["line"] == 2
    only = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="hwf.runDesignTests", arguments=[uri, ["fails"]]))
    assert [c["name"] for c in only["cases"]] == ["fails"]


async def test_run_design_tests_answers_an_invalid_file_with_its_errors(client):
    text, [(start, end)] = marked(ERRORS[0][1])
    uri = file_uri("invalid-run")
    open_doc(client, uri, text)
    answer = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="hwf.runDesignTests", arguments=[uri]))
    assert answer["cases"] == []
    [error] = answer["errors"]
    assert error["pointer"] == "/cases/0/agents/wrok"
    rng = span_range(text, start, end, client.encoding)
    assert (error["range"]["start"]["character"], error["range"]["end"]["character"]) == (
        rng.start.character, rng.end.character)


async def test_run_design_tests_refuses_a_file_that_is_not_a_suite(client):
    with pytest.raises(Exception, match="not a design test file"):
        await client.workspace_execute_command_async(types.ExecuteCommandParams(
            command="hwf.runDesignTests", arguments=[(FOLDER / DESIGN_FILE).as_uri()]))


async def test_hover_on_a_failing_delivery_shows_the_output(client):
    _text, hover = await hover_at(client, "hover-item",
                                  suite(case('"failing_deliveries": ["o|ut"], ' + DONE)))
    assert "out · output" in hover.contents.value.replace("**", "")
    assert "notification" in hover.contents.value  # its deliver, the main field


async def test_run_design_tests_reads_a_closed_file_from_disk(client):
    path = FOLDER / "on-disk.hwf-test.json"
    path.write_text(suite(case('"agents": {"work": {"structured": {"score": 9}}}, '
                               '"answers": {"ok": "approve"}, ' + DONE, name="disk")),
                    encoding="utf-8")
    answer = await client.workspace_execute_command_async(types.ExecuteCommandParams(
        command="hwf.runDesignTests", arguments=[path.as_uri()]))
    assert [(c["name"], c["passed"]) for c in answer["cases"]] == [("disk", True)]


async def test_saving_the_design_checks_the_open_test_files_again(client):
    """The design is read from disk: a node added and saved there ends the test file's
    "unknown node" without an edit of the test file."""
    folder = FOLDER / f"resave-{client.client_name}"
    folder.mkdir(exist_ok=True)
    design_path = folder / DESIGN_FILE
    design_path.write_text(json.dumps(branching_design()), encoding="utf-8")
    text = suite(case('"agents": {"extra": {"output": "x"}}, ' + DONE))
    uri = (folder / "resave.hwf-test.json").as_uri()
    open_doc(client, uri, text)
    assert any("unknown node 'extra'" in d.message for d in await wait_published(client, uri, 1))
    grown = branching_design()
    grown["nodes"].append({"id": "extra", "type": "agent", "prompt": "p", "after": ["start"]})
    design_path.write_text(json.dumps(grown), encoding="utf-8")
    client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=doc_id(design_path.as_uri())))

    async def now() -> list:
        await asyncio.sleep(0.05)
        return [p for p in client.published if p.uri == uri]

    def unknown(diagnostics) -> list:
        return [d for d in diagnostics if "unknown node" in d.message]

    published = await eventually(now, lambda ps: bool(ps) and not unknown(ps[-1].diagnostics))
    assert unknown(published[-1].diagnostics) == []  # (its cases now run: they may fail)
