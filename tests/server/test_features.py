"""Quick fixes, inlay hints, document and workspace symbols, end to end."""

from __future__ import annotations

import asyncio
import json
import time

import pytest
from helpers_lsp import (
    WORKSPACE,
    apply_edits,
    change_doc,
    design_uri,
    eventually,
    open_doc,
    position,
    wait_published,
    write_run,
)
from lsprotocol import types
from support.lsp import doc_id

pytestmark = pytest.mark.asyncio(loop_scope="module")

T = '{"id": "t", "type": "trigger"}'




def design(*nodes: str, name: str = "fixes") -> str:
    return '{"name": "' + name + '", "nodes": [\n  ' + ",\n  ".join(nodes) + "\n]}"


AGENT = '{"id": "a", "type": "agent", "prompt": "p", "after": ["t"]'
# (case, design, code of the diagnostic, title of the fix, text the fixed design contains)
FIXES = [
    ("kind", design(T, '{"id": "a", "type": "agnet", "prompt": "p", "after": ["t"]}'),
     "known-kind", "Change type to 'agent'", '"type": "agent"'),
    ("after-nearest", design(T, AGENT + "}", '{"id": "b", "type": "agent", "prompt": "p", '
                             '"after": ["aa"]}'), "edges", "Change to 'a'", '"after": ["a"]'),
    ("after-remove", design(T, AGENT + "}", '{"id": "b", "type": "agent", "prompt": "p", '
                            '"after": ["t", "zzz"]}'), "edges", "Remove 'zzz' from after",
     '"after": ["t"]'),
    ("after-note", design(T, '{"id": "n", "type": "note"}', '{"id": "b", "type": "agent", '
                          '"prompt": "p", "after": ["n", "t"]}'), "edges",
     "Remove 'n' from after", '"after": ["t"]'),
    ("retries-clamp", design(T, AGENT + ', "retries": 9}'), "retries",
     "Set retries to 3 (allowed 0–3)", '"retries": 3'),
    ("timeout-clamp", design(T, '{"id": "a", "type": "approval", "question": "q", '
                             '"after": ["t"], "timeout_minutes": 0}'), "deadline",
     "Set timeout_minutes to 1 (allowed 1–4320)", '"timeout_minutes": 1'),
    ("trigger", design('{"id": "a", "type": "agent", "prompt": "p"}'), "one-trigger",
     "Add a trigger node", '{"id": "trigger", "type": "trigger"}, {"id": "a"'),
    ("upstream", design(T, AGENT + "}", '{"id": "c", "type": "condition", '
                        '"expression": "out.a.ok == true", "after": ["t"]}'), "not-upstream",
     "Add 'a' to after", '"after": ["t", "a"]'),
    ("typo-field", design(T, AGENT + ', "retrys": 1}'), "unknown-field",
     "Rename to 'retries'", '"retries": 1'),
    ("missing-comma", design(T + "\n  " + AGENT + "}"),  # no comma between the nodes
     "json-syntax", "Insert the missing ','", T + ",\n"),
]


async def test_quick_fixes(client):
    for case, text, code, title, expected in FIXES:
        uri = design_uri(f"fix-{case}-{client.client_name}")
        open_doc(client, uri, text)
        diagnostics = await wait_published(client, uri, 1)
        target = [d for d in diagnostics if d.code == code]
        assert len(target) == 1, (case, diagnostics)
        actions = await client.text_document_code_action_async(types.CodeActionParams(
            text_document=doc_id(uri), range=target[0].range,
            context=types.CodeActionContext(diagnostics=target)))
        chosen = [a for a in actions if a.title == title]
        assert chosen, (case, [a.title for a in actions])
        assert chosen[0].diagnostics[0].code == code
        fixed = apply_edits(text, chosen[0].edit.changes[uri], client.encoding)
        assert expected in fixed, (case, fixed)
        version = change_doc(client, uri, fixed)
        after = await wait_published(client, uri, version)
        assert not [d for d in after if d.code == code], (case, after)
        assert not [d for d in after if d.code == "json-syntax"], (case, fixed)


@pytest.mark.parametrize("only", [["source.fixAll"], ["source.fixAll.hwf"], ["source"]])
async def test_fix_all_in_one_action(client, only):
    """`source.fixAll.hwf`: every safe fix of examples/broken.hwf.json in one edit; what
    is left is what only the author can write (a prompt, left empty; a channel), every
    node kept;
    asked for as VS Code and Neovim ask."""
    from pathlib import Path
    text = (Path(__file__).resolve().parents[2] / "examples" / "broken.hwf.json").read_text()
    uri = design_uri(f"fix-all-{only[0]}-{client.client_name}")
    open_doc(client, uri, text)
    diagnostics = await wait_published(client, uri, 1)
    assert len(diagnostics) == 20
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=doc_id(uri), range=diagnostics[0].range,
        context=types.CodeActionContext(diagnostics=[], only=only)))
    (action,) = actions
    assert action.kind == "source.fixAll.hwf"
    assert len(action.edit.changes[uri]) == 1
    fixed = apply_edits(text, action.edit.changes[uri], client.encoding)
    assert [n["id"] for n in json.loads(fixed)["nodes"]][:3] == ["start", "second-start",
                                                                  "fetch"]
    assert len(json.loads(fixed)["nodes"]) == len(json.loads(text)["nodes"])
    version = change_doc(client, uri, fixed)
    left = await wait_published(client, uri, version)
    assert {(d.code, d.data["field"]) for d in left} == {
        ("required-payload", "prompt"), ("delivery", "target"), ("delivery", "deliver")
    }, left  # the author's words: a prompt, a channel


async def test_a_nodes_fix_shows_at_its_other_finding_on_the_line(client):
    """On `summarize`'s line the rename of `promt` is offered from the missing-prompt
    error 30 columns away too."""
    text = design(T, '{"id": "s", "type": "agent", "promt": "Sum up.", "after": ["t"]}')
    uri = design_uri(f"fix-same-line-{client.client_name}")
    open_doc(client, uri, text)
    diagnostics = await wait_published(client, uri, 1)
    (payload,) = [d for d in diagnostics if d.code == "required-payload"]
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=doc_id(uri), range=payload.range,
        context=types.CodeActionContext(diagnostics=[payload])))
    assert "Rename to 'prompt'" in [a.title for a in actions]


HINTS = design(
    T,
    '{"id": "b", "type": "agent", "prompt": "p", "after": ["a"]}',
    '{"id": "a", "type": "agent", "prompt": "p", "after": ["t"]}',
    '{"id": "c", "type": "condition", "expression": "out.b.ok == true", "after": ["b"]}',
    '{"id": "d", "type": "agent", "prompt": "p", "after": ["c"]}',
    '{"id": "ap", "type": "approval", "question": "q", "after": ["a"]}',
    '{"id": "n", "type": "note", "text": "x"}',
    name="hints-design",
)


async def test_inlay_hints_plan_and_status(client):
    write_run("hints-design", "bbbb0001", {"a": {"x": 1}, "b": "text"}, status="awaiting_approval",
              skipped=["c", "d"], pending={"kind": "approval", "node": "ap", "question": "q"})
    uri = design_uri(f"hints-{client.client_name}")
    open_doc(client, uri, HINTS)
    await wait_published(client, uri, 1)
    lines = HINTS.split("\n")
    params = types.InlayHintParams(text_document=doc_id(uri), range=types.Range(
        start=types.Position(line=0, character=0),
        end=types.Position(line=len(lines), character=0)))
    hints = await eventually(lambda: client.text_document_inlay_hint_async(params),
                             lambda hints: any(h.label == "⏸ waiting for approval" for h in hints))
    by_line: dict[int, list[str]] = {}
    for hint in hints:
        by_line.setdefault(hint.position.line, []).append(hint.label)
    assert by_line == {
        2: ["#2", "✓ done"],       # b runs after a
        3: ["#1", "✓ done"],       # a
        4: ["#3", "⤼ skipped: false condition"],
        5: ["#4", "⤼ skipped: skipped parent"],
        6: ["#5", "⏸ waiting for approval"],
    }
    # the hint sits right after the id value
    b_line = lines[2]
    hint = next(h for h in hints if h.position.line == 2)
    assert hint.position == position(HINTS, HINTS.index(b_line) + b_line.index('"b"') + 3,
                                     client.encoding)


async def test_failed_status_hint(client):
    """One rule for the failed step (rules.run_facts.failed_step), whatever wrote the run."""
    name = f"failed-design-{client.client_name}"
    text = design(T, '{"id": "a", "type": "agent", "prompt": "p", "after": ["t"]}', name=name)
    uri = design_uri(f"failed-{client.client_name}")
    n = 1 if "neo" in name else 2  # run ids per client: the two never see each other's runs

    async def shows(expected: list[str]) -> list[str]:
        """The hints, once they are `expected` (the runs watcher polls every 200 ms)."""
        client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=doc_id(uri)))
        deadline = time.monotonic() + 5
        while True:
            hints = await client.text_document_inlay_hint_async(types.InlayHintParams(
                text_document=doc_id(uri), range=types.Range(
                    start=types.Position(line=0, character=0),
                    end=types.Position(line=9, character=0))))
            found = [h.label for h in hints]
            if found == expected or time.monotonic() > deadline:
                return found
            await asyncio.sleep(0.02)

    # no attempts, no log: the cursor on the step of the run's design snapshot says it
    write_run(name, f"cccc000{n}", {}, status="failed",
              error="agent step 'a' failed after 3 attempts", design=json.loads(text))
    open_doc(client, uri, text)
    await wait_published(client, uri, 1)
    assert await shows(["#1", "✗ failed"]) == ["#1", "✗ failed"]
    # a newer completed run: done
    write_run(name, f"dddd000{n}", {"a": 1}, updated_at="2026-11-30T06:00:00Z")
    assert await shows(["#1", "✓ done"]) == ["#1", "✓ done"]
    # a newer failed run of another tool (no snapshot, no log): the open design plans it
    write_run(name, f"eeee000{n}", {}, status="failed", error="failed",
              updated_at="2026-11-30T07:00:00Z")
    assert await shows(["#1", "✗ failed"]) == ["#1", "✗ failed"]


async def test_document_symbols_in_plan_order(client):
    uri = design_uri(f"symbols-{client.client_name}")
    open_doc(client, uri, HINTS)
    await wait_published(client, uri, 1)
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=doc_id(uri)))
    assert [s.name for s in symbols] == ["t", "a", "b", "c", "d", "ap", "n"]
    assert [s.detail.split(" ")[0] for s in symbols] == [
        "trigger", "#1", "#2", "#3", "#4", "#5", "note"]
    kinds = {s.name: s.kind for s in symbols}
    assert kinds["t"] == types.SymbolKind.Event and kinds["a"] == types.SymbolKind.Function


async def test_workspace_symbols_across_designs(client):
    folder = WORKSPACE / "proj" / "workflow-designs"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "alpha.json").write_text(design(T, '{"id": "zeta_alpha", "type": "agent", '
                                              '"prompt": "p", "after": ["t"]}', name="alpha"))
    (WORKSPACE / "proj" / "beta.hwf.json").write_text(design(
        T, '{"id": "zeta_beta", "type": "note"}', name="beta"))
    (WORKSPACE / "proj" / "package.json").write_text(design(
        T, '{"id": "zeta_package", "type": "note"}', name="package"))
    (WORKSPACE / "node_modules" / "workflow-designs").mkdir(parents=True, exist_ok=True)
    (WORKSPACE / "node_modules" / "workflow-designs" / "dep.json").write_text(design(
        T, '{"id": "zeta_dep", "type": "note"}', name="dep"))
    found = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="zeta"))
    names = sorted((s.name, s.container_name) for s in found)
    assert names == [("zeta_alpha", "alpha"), ("zeta_beta", "beta")]
    alpha = next(s for s in found if s.name == "zeta_alpha")
    assert alpha.location.uri == (folder / "alpha.json").as_uri()
    assert alpha.location.range.start.line == 2
