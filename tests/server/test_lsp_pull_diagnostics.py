"""Pull diagnostics: a client with the textDocument.diagnostic capability pulls, and is
never pushed any; a run written for a design it pulled asks it to pull again."""

from __future__ import annotations

import asyncio

import pytest
from helpers_lsp import (
    WORKSPACE,
    as_tuple,
    change_doc,
    design_uri,
    open_doc,
    server_config,
    span_range,
)
from lsprotocol import types
from support.lsp import client_fixture, doc_id

pytestmark = pytest.mark.asyncio(loop_scope="module")

client = client_fixture(server_config(), WORKSPACE,
                        clients=("visual-studio-code+pull", "neovim+pull"))

BROKEN = '{"name": "pull-😀", "nodes": [{"id": "t", "type": "trigger"}, ' \
         '{"id": "a", "type": "agent", "prompt": "😀", "retries": 9}]}'


async def pull(client, uri: str) -> list[types.Diagnostic]:
    report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=doc_id(uri)))
    assert report.kind == "full"
    return list(report.items)


async def test_pulled_never_pushed(client):
    assert client.init_result.capabilities.diagnostic_provider is not None
    uri = design_uri(f"pull-{client.client_name}")
    open_doc(client, uri, BROKEN)
    items = await pull(client, uri)
    assert [d.code for d in items] == ["retries"]
    start = BROKEN.index("9")
    assert as_tuple(items[0].range) == as_tuple(span_range(BROKEN, start, start + 1,
                                                           client.encoding))
    change_doc(client, uri, BROKEN.replace("9", "1"))
    assert await pull(client, uri) == []
    await asyncio.sleep(0.3)
    assert not [p for p in client.published if p.uri == uri]


async def test_other_json_gets_an_empty_report(client):
    uri = (WORKSPACE / "package.json").as_uri()
    open_doc(client, uri, '{"name": 1')
    assert await pull(client, uri) == []
