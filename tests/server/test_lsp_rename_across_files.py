"""Rename and references reach the design test files that name the design (issue 47)."""

from __future__ import annotations

import json

import pytest
from helpers_lsp import (
    WORKSPACE,
    apply_edits,
    design_uri,
    edits_of,
    open_doc,
    position,
    wait_published,
)
from lsprotocol import types
from support.lsp import doc_id

pytestmark = pytest.mark.asyncio(loop_scope="module")


def design_text(name: str) -> str:
    return json.dumps({"name": name, "nodes": [
        {"id": "t", "type": "trigger"},
        {"id": "review", "type": "agent", "prompt": "p", "after": ["t"]},
        {"id": "ok", "type": "condition", "expression": "out.review.score > 1",
         "after": ["review"]},
        {"id": "post", "type": "output", "deliver": True, "after": ["ok"]},
    ]}, indent=2)


def design_test_text(design: str) -> str:
    return json.dumps({"design": design, "cases": [{
        "name": "c", "agents": {"review": {"structured": {"score": 2}}},
        "expect": {"status": "completed", "steps": {"review": "done", "ok": "done"},
                   "outputs": {"post": {"review": {"score": 2}}}, "delivered": {"post": True}},
    }]}, indent=2)


async def setup(client, stem: str) -> tuple[str, str, dict[str, str]]:
    """A design open in the editor; a test file naming it by path, one by name, one naming
    another design, all on disk."""
    name = f"{stem}-{client.client_name}"
    text = design_text(name)
    uri = design_uri(name)
    (WORKSPACE / f"{name}.hwf.json").write_text(text)
    tests = {"path": f"{name}.hwf.json", "name": name, "other": "someone-else"}
    files = {}
    for kind, ref in tests.items():
        path = WORKSPACE / f"{name}-{kind}.hwf-test.json"
        path.write_text(design_test_text(ref))
        files[kind] = path.as_uri()
    open_doc(client, uri, text)
    await wait_published(client, uri, 1)
    return uri, text, files


async def test_renaming_a_node_reaches_its_test_files(client):
    uri, text, files = await setup(client, "renames")
    at = position(text, text.index('"review"') + 2, client.encoding)
    edit = await client.text_document_rename_async(types.RenameParams(
        text_document=doc_id(uri), position=at, new_name="critique"))
    renamed = apply_edits(text, edits_of(edit, uri), client.encoding)
    assert "review" not in renamed and renamed.count("critique") == 3
    for kind in ("path", "name"):
        source = (WORKSPACE / files[kind].rsplit("/", 1)[1]).read_text()
        after = apply_edits(source, edits_of(edit, files[kind]), client.encoding)
        assert "review" not in after and after.count("critique") == 3, kind
    assert edits_of(edit, files["other"]) == []

    refs = await client.text_document_references_async(types.ReferenceParams(
        text_document=doc_id(uri), position=at,
        context=types.ReferenceContext(include_declaration=True)))
    by_file = {}
    for location in refs:
        by_file[location.uri] = by_file.get(location.uri, 0) + 1
    assert by_file == {uri: 3, files["path"]: 3, files["name"]: 3}


async def test_renaming_the_design_updates_tests_that_name_it(client):
    uri, text, files = await setup(client, "design-name")
    name = json.loads(text)["name"]
    at = position(text, text.index(f'"{name}"') + 2, client.encoding)
    prepared = await client.text_document_prepare_rename_async(types.PrepareRenameParams(
        text_document=doc_id(uri), position=at))
    assert prepared.placeholder == name
    edit = await client.text_document_rename_async(types.RenameParams(
        text_document=doc_id(uri), position=at, new_name="fresh-name"))
    assert json.loads(apply_edits(text, edits_of(edit, uri), client.encoding))["name"] == \
        "fresh-name"
    by_name = (WORKSPACE / files["name"].rsplit("/", 1)[1]).read_text()
    renamed = apply_edits(by_name, edits_of(edit, files["name"]), client.encoding)
    assert json.loads(renamed)["design"] == "fresh-name"
    assert edits_of(edit, files["path"]) == []  # a path to the file stays
    assert edits_of(edit, files["other"]) == []
    with pytest.raises(Exception, match="invalid design name"):
        await client.text_document_rename_async(types.RenameParams(
            text_document=doc_id(uri), position=at, new_name="../escape"))
