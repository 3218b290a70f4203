"""Typing every example character by character: no handler fails, versions only increase.

Each prefix of each example (and of a few designs with emoji and CRLF) is sent
as a change; at every prefix completion runs at the cursor, and hover,
symbols, hints, code actions, definition, references and prepareRename run on
a stride.  Any handler failure is reported by the server as an Error log
message, so the test asserts there is none, and that the diagnostics versions
published for each document only increase and end on the last one.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from helpers_lsp import design_uri, open_doc, position, wait_published
from lsprotocol import types
from support.lsp import doc_id

pytestmark = pytest.mark.asyncio(loop_scope="module")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
EXTRA = {
    "emoji-crlf": '{"name": "e",\r\n "nodes": [{"id": "t", "type": "trigger", "title": "😀 日本"},'
                  '\r\n  {"id": "a", "type": "agent", "prompt": "🚀 \\u00e9\\n", "after": ["t"]},'
                  '\r\n  {"id": "c", "type": "condition", "expression": "out.a.x == \\"é\\"", '
                  '"after": ["a"]}]}',
}
STRIDE = 23


def example_texts() -> dict[str, str]:
    texts = {p.name: p.read_text(encoding="utf-8") for p in sorted(EXAMPLES.glob("*.json"))
             if not p.name.endswith((".expected.json", ".hwf-test.json"))}  # not designs
    texts.update({p.name: p.read_text(encoding="utf-8")
                  for p in sorted((EXAMPLES / "workflow-designs").glob("*.json"))})
    texts.update(EXTRA)
    return texts



async def every_handler(client, uri: str, text: str, pos: types.Position) -> None:
    whole = types.Range(start=types.Position(line=0, character=0), end=pos)
    await client.text_document_hover_async(types.HoverParams(text_document=doc_id(uri),
                                                             position=pos))
    await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=doc_id(uri)))
    await client.text_document_inlay_hint_async(
        types.InlayHintParams(text_document=doc_id(uri), range=whole))
    await client.text_document_code_action_async(types.CodeActionParams(
        text_document=doc_id(uri), range=whole,
        context=types.CodeActionContext(diagnostics=[])))
    await client.text_document_definition_async(
        types.DefinitionParams(text_document=doc_id(uri), position=pos))
    await client.text_document_references_async(types.ReferenceParams(
        text_document=doc_id(uri), position=pos,
        context=types.ReferenceContext(include_declaration=True)))
    await client.text_document_prepare_rename_async(
        types.PrepareRenameParams(text_document=doc_id(uri), position=pos))


async def test_typing_every_prefix(client):
    texts = example_texts()
    assert len(texts) >= 5
    for name, full in texts.items():
        uri = design_uri(f"typed-{name.replace('.', '-')}-{client.client_name}")
        open_doc(client, uri, "")
        version = 1
        pending = []
        for end in range(1, len(full) + 1):
            prefix = full[:end]
            version += 1
            client.text_document_did_change(types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=prefix)]))
            pos = position(prefix, end, client.encoding)
            # pipelined: the server answers in order, each at its own prefix
            pending.append(asyncio.ensure_future(client.text_document_completion_async(
                types.CompletionParams(text_document=doc_id(uri), position=pos))))
            if end % STRIDE == 0 or end == len(full):
                pending.append(asyncio.ensure_future(every_handler(client, uri, prefix, pos)))
        await asyncio.gather(*pending)
        client.versions[uri] = version
        await wait_published(client, uri, version)
        versions = [p.version for p in client.published if p.uri == uri]
        assert versions == sorted(versions), name  # never an older one after a newer one
        assert versions[-1] == version
    errors = [m.message for m in client.log_messages if m.type == types.MessageType.Error]
    assert errors == []


async def test_incremental_edits_even_out_of_range(client):
    """Ranged edits (inside, at the end, far past the end) keep the server working."""
    uri = design_uri(f"incremental-{client.client_name}")
    text = '{"name": "inc", "nodes": [{"id": "t", "type": "trigger"}]}'
    open_doc(client, uri, text)
    await wait_published(client, uri, 1)
    edits = [
        (types.Range(start=types.Position(line=0, character=9),
                     end=types.Position(line=0, character=14)), '"inc2"'),
        (types.Range(start=types.Position(line=5, character=0),
                     end=types.Position(line=9, character=99)), "\n"),
        (types.Range(start=types.Position(line=0, character=500),
                     end=types.Position(line=0, character=2)), ""),
        (types.Range(start=types.Position(line=0, character=0),
                     end=types.Position(line=99, character=0)), text),
    ]
    for version, (rng, new) in enumerate(edits, start=2):
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangePartial(range=rng, text=new)]))
    final = len(edits) + 1
    assert await wait_published(client, uri, final) == []
    errors = [m.message for m in client.log_messages if m.type == types.MessageType.Error]
    assert errors == []
