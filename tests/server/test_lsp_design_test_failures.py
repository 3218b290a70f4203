"""A design test file's failing expectation is a diagnostic at its `expect` entry
(issue 43), in every client, not only VS Code's Test Explorer: the cases run when the
file is opened or saved (on the worker, never on a keystroke: running costs)."""

from __future__ import annotations

import asyncio

import pytest
from helpers_lsp import (
    as_tuple,
    change_doc,
    eventually,
    marked,
    open_doc,
    span_range,
    wait_published,
)
from lsprotocol import types
from support.design_tests import DESIGN_FILE
from support.lsp import doc_id
from test_lsp_design_tests import FOLDER  # the folder with the design under test

pytestmark = pytest.mark.asyncio(loop_scope="module")


PASSES = ('{"name": "passes", "agents": {"work": {"structured": {"score": 9}}}, '
          '"answers": {"ok": "approve"}, "expect": {"status": "completed"}}')
# (name, the failing case with its «marked» `expect` entry, the words of the message)
FAILING = [
    ("a step state", '{"name": "fails", "agents": {"work": {"structured": {"score": 1}}}, '
     '"expect": {"steps": {«"high": "done"»}}}', "case 'fails' fails: step 'high'"),
    ("the status", '{"name": "parks", "expect": {«"status": "completed"»}}',
     "case 'parks' fails: status: expected 'completed'"),
]


def suite(*cases: str) -> str:
    return '{"design": "' + DESIGN_FILE + '", "cases": [\n  ' + ",\n  ".join(cases) + "\n]}"


@pytest.mark.parametrize(("name", "failing", "words"), FAILING, ids=[f[0] for f in FAILING])
async def test_a_failing_expectation_is_a_diagnostic_on_open_and_save_not_on_a_keystroke(
        client, name, failing, words):
    text, [(start, end)] = marked(suite(PASSES, failing))
    uri = (FOLDER / f"{name.replace(' ', '-')}-{client.client_name}.hwf-test.json").as_uri()
    open_doc(client, uri, text)

    (diagnostic,) = await wait_published(client, uri, 1)
    assert diagnostic.code == "design-test" and words in diagnostic.message
    assert as_tuple(diagnostic.range) == as_tuple(span_range(text, start, end, client.encoding))

    typed = text.replace("\n]}", " \n]}")  # a keystroke: checked at once, the cases not run
    version = change_doc(client, uri, typed)
    assert await wait_published(client, uri, version) == []

    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=doc_id(uri)))
    (saved,) = await wait_published_again(client, uri, version)
    assert saved.message == diagnostic.message


async def wait_published_again(client, uri: str, version: int) -> list:
    """The diagnostics published for `version` once more (after the save's check)."""
    async def ask() -> list:
        await asyncio.sleep(0.05)
        return [p for p in client.published if p.uri == uri and p.version == version]
    found = await eventually(ask, lambda ps: len(ps) >= 2 and bool(ps[-1].diagnostics))
    return list(found[-1].diagnostics)
