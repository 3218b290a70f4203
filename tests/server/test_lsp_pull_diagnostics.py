"""Pull diagnostics: a client with the textDocument.diagnostic capability pulls, and is
never pushed any.  (The same module checks the flat outline for a client without a
symbol hierarchy: both are answers shaped by one capability.)"""

from __future__ import annotations

import asyncio
import json

import pytest
from helpers_lsp import (
    WORKSPACE,
    as_tuple,
    change_doc,
    design_uri,
    open_doc,
    server_config,
    span_range,
    write_run,
)
from lsprotocol import types
from support.lsp import client_fixture, doc_id

pytestmark = pytest.mark.asyncio(loop_scope="module")

client = client_fixture(server_config(), WORKSPACE,
                        clients=("visual-studio-code+pull", "neovim+pull"))

BROKEN = '{"name": "pull", "nodes": [{"id": "t", "type": "trigger"}, ' \
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


async def test_a_new_run_asks_to_pull_again(client):
    name = f"pull-run-{client.client_name.replace('+', '-')}"
    text = json.dumps({"name": name, "nodes": [
        {"id": "t", "type": "trigger"}, {"id": "a", "type": "agent", "prompt": "p",
                                         "after": ["t"]},
        {"id": "c", "type": "condition", "expression": "out.a.scor == 1", "after": ["a"]}]})
    uri = design_uri(name)
    open_doc(client, uri, text)
    assert await pull(client, uri) == []
    before = getattr(client, "diagnostic_refreshes", 0)
    write_run(name, f"cd{abs(hash(name)) % 10**8:08d}", {"a": {"score": 1}})
    for _ in range(200):
        if getattr(client, "diagnostic_refreshes", 0) > before:
            break
        await asyncio.sleep(0.05)
    assert getattr(client, "diagnostic_refreshes", 0) > before
    assert [d.code for d in await pull(client, uri)] == ["path-absent"]


async def test_other_json_gets_an_empty_report(client):
    uri = (WORKSPACE / "package.json").as_uri()
    open_doc(client, uri, '{"name": 1')
    assert await pull(client, uri) == []


flat_client = client_fixture(server_config(), WORKSPACE, clients=("neovim+flat",))


async def test_flat_outline_without_hierarchy_support(flat_client):
    text = '{"name": "flat", "nodes": [{"id": "t", "type": "trigger"}, ' \
           '{"id": "😀a", "type": "agent", "prompt": "p", "after": ["t"]}]}'
    uri = design_uri("flat-outline")
    open_doc(flat_client, uri, text)
    symbols = await flat_client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=doc_id(uri)))
    assert [s.name for s in symbols] == ["t", "😀a"]
    assert all(isinstance(s, types.SymbolInformation) for s in symbols)
    start = text.index('{"id": "😀a"')
    assert as_tuple(symbols[1].location.range) == as_tuple(span_range(
        text, start, len(text) - 2, flat_client.encoding))
