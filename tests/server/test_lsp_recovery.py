"""Recovery and separator-aware completion end to end, as VS Code and as Neovim.

A stray `}` after a node of a design with non-ASCII text: one syntax diagnostic, and the
rulebook's findings on every later node, at exact ranges in the negotiated encoding.
A completion accepted after the last member brings its ',' as an additional edit.
"""

from __future__ import annotations

import json

import pytest
from helpers_lsp import (
    apply_edits,
    as_tuple,
    cursor,
    design_uri,
    open_doc,
    position,
    span_range,
    wait_published,
)
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")

NODES = [
    {"id": "départ", "type": "trigger", "title": "🚀 Démarrer"},
    {"id": "rédiger", "type": "agent", "title": "写作 ✍️", "prompt": "Écris 📝", "retries": 1,
     "after": ["départ"]},
    {"id": "relire", "type": "agent", "title": "校对 👀", "prompt": "Relis", "retries": 9,
     "after": ["rédiger"]},
    {"id": "publier", "type": "output", "title": "发布 📣", "deliver": "channel",
     "target": "no-colon", "after": ["relire"]},
]


def design_text() -> str:
    return json.dumps({"name": "recovery-e2e", "nodes": NODES}, indent=2,
                      ensure_ascii=False) + "\n"


async def test_a_stray_brace_costs_no_finding(client):
    intact = design_text()
    uri = design_uri(f"recovery-intact-{client.client_name}")
    open_doc(client, uri, intact)
    before = await wait_published(client, uri, 1)
    after_node = intact.index("    },", intact.index('"rédiger"')) + len("    }")
    broken = intact[:after_node] + "}" + intact[after_node:]
    uri = design_uri(f"recovery-broken-{client.client_name}")
    open_doc(client, uri, broken)
    diagnostics = await wait_published(client, uri, 1)
    enc = client.encoding
    syntax = [d for d in diagnostics if d.code == "json-syntax"]
    assert [(d.message, as_tuple(d.range)) for d in syntax] == [
        ("Unexpected '}'", as_tuple(span_range(broken, after_node, after_node + 1, enc)))]
    rules = sorted((d.code, d.message, as_tuple(d.range)) for d in diagnostics
                   if d.code != "json-syntax")
    assert rules and rules == sorted((d.code, d.message, as_tuple(d.range)) for d in before
                                     if d.range.start.line < position(intact, after_node,
                                                                      enc).line) + sorted(
        (d.code, d.message, as_tuple(d.range)) for d in before
        if d.range.start.line >= position(intact, after_node, enc).line)
    nine = broken.index('"retries": 9') + len('"retries": ')
    assert ("retries", as_tuple(span_range(broken, nine, nine + 1, enc))) in [
        (code, rng) for code, _, rng in rules]


async def test_a_completion_after_the_last_member_brings_its_comma(client):
    text, offset = cursor(design_text().replace('"prompt": "Relis"', '"prompt": "Relis" |'))
    uri = design_uri(f"recovery-comma-{client.client_name}")
    open_doc(client, uri, text)
    await wait_published(client, uri, 1)
    result = await client.text_document_completion_async(types.CompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=position(text, offset, client.encoding)))
    item = next(i for i in result.items if i.label == "timeout_minutes")
    comma_at = text.index('"Relis"') + len('"Relis"')
    (comma,) = item.additional_text_edits
    assert comma.new_text == "," and as_tuple(comma.range) == as_tuple(
        span_range(text, comma_at, comma_at, client.encoding))
    edit = item.text_edit
    plain = types.TextEdit(range=edit.replace if isinstance(edit, types.InsertReplaceEdit)
                           else edit.range,
                           new_text=item.text_edit.new_text.replace("${1:", "").replace("}", ""))
    accepted = apply_edits(text, [plain, comma], client.encoding)
    assert json.loads(accepted)["nodes"][2]["timeout_minutes"] == 60
