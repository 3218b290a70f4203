"""Rename, references, definition, prepareRename and hover, end to end."""

from __future__ import annotations

import pytest
from helpers_lsp import (
    HERMES_HOME,
    apply_edits,
    as_tuple,
    design_uri,
    edits_of,
    eventually,
    marked,
    open_doc,
    position,
    span_range,
    wait_published,
    write_run,
)
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from support.lsp import doc_id

pytestmark = pytest.mark.asyncio(loop_scope="module")

# «…» marks every occurrence of the id `review`; `reviewer` and the prompt text must survive.
SOURCE = """{"name": "nav-design", "nodes": [
  {"id": "t", "type": "trigger"},
  {"id": "«review»", "type": "agent", "title": "Review it", "prompt": "Do a review\\nthoroughly",
   "after": ["t"]},
  {"id": "reviewer", "type": "agent", "prompt": "review the review", "after": ["«review»", "t"]},
  {"id": "ok", "type": "condition", "expression": "out.«review».verdict == \\"ok\\"",
   "after": ["reviewer", "«review»"]},
  {"id": "hi", "type": "condition", "expression": "  out.«review».score >= 3",
   "after": ["«review»"]},
  {"id": "n", "type": "note", "text": "review"}
]}
"""


def uri_for(client, name: str) -> str:
    return design_uri(f"{name}-{client.client_name}")


async def opened(client, name: str, text: str) -> str:
    uri = uri_for(client, name)
    open_doc(client, uri, text)
    await wait_published(client, uri, 1)
    return uri


def at(text: str, offset: int, encoding: str) -> types.Position:
    return position(text, offset, encoding)



async def test_references_and_rename(client):
    text, spans = marked(SOURCE)
    uri = await opened(client, "nav", text)
    assert len(spans) == 6
    want = sorted(as_tuple(span_range(text, s, e, client.encoding)) for s, e in spans)
    for start, end in spans:  # from every occurrence, both edges included
        for offset in (start, end):
            refs = await client.text_document_references_async(types.ReferenceParams(
                text_document=doc_id(uri), position=at(text, offset, client.encoding),
                context=types.ReferenceContext(include_declaration=True)))
            assert sorted(as_tuple(r.range) for r in refs) == want
    refs = await client.text_document_references_async(types.ReferenceParams(
        text_document=doc_id(uri), position=at(text, spans[3][0], client.encoding),
        context=types.ReferenceContext(include_declaration=False)))
    assert len(refs) == 5

    edit = await client.text_document_rename_async(types.RenameParams(
        text_document=doc_id(uri), position=at(text, spans[2][0] + 1, client.encoding),
        new_name="check"))
    edits = edits_of(edit, uri)
    assert len(edits) == 6
    renamed = apply_edits(text, edits, client.encoding)
    expected, _ = marked(SOURCE.replace("«review»", "check"))
    assert renamed == expected



async def test_definition_from_every_reference(client):
    text, spans = marked(SOURCE)
    uri = await opened(client, "def", text)
    definition = as_tuple(span_range(text, *spans[0], client.encoding))
    for start, _ in spans:
        found = await client.text_document_definition_async(types.DefinitionParams(
            text_document=doc_id(uri), position=at(text, start + 1, client.encoding)))
        assert [as_tuple(loc.range) for loc in found] == [definition]


async def test_prepare_rename_refuses_what_is_not_an_id(client):
    text, spans = marked(SOURCE)
    uri = await opened(client, "prep", text)
    not_ids = [text.index('"type"') + 2, text.index("Do a review") + 5,
               text.index('"note"') + 2, text.index("verdict") + 1, text.index('"name"') + 1]
    for offset in not_ids:
        result = await client.text_document_prepare_rename_async(types.PrepareRenameParams(
            text_document=doc_id(uri), position=at(text, offset, client.encoding)))
        assert result is None, text[offset - 5: offset + 5]
    result = await client.text_document_prepare_rename_async(types.PrepareRenameParams(
        text_document=doc_id(uri), position=at(text, spans[4][0] + 2, client.encoding)))
    assert result.placeholder == "review"
    assert as_tuple(result.range) == as_tuple(span_range(text, *spans[4], client.encoding))


async def test_rename_refuses_bad_or_taken_names(client):
    text, spans = marked(SOURCE)
    uri = await opened(client, "badname", text)
    for new_name in ("reviewer", "has space", "dot.ted", ""):
        with pytest.raises(JsonRpcException):
            await client.text_document_rename_async(types.RenameParams(
                text_document=doc_id(uri), position=at(text, spans[0][0], client.encoding),
                new_name=new_name))


async def hover_text(client, uri: str, text: str, offset: int) -> types.Hover | None:
    return await client.text_document_hover_async(types.HoverParams(
        text_document=doc_id(uri), position=at(text, offset, client.encoding)))


async def test_hover(client):
    write_run("nav-design", "abcdef01", {"review": {"verdict": "ok", "score": 4}},
              status="awaiting_approval", skipped=["hi"])
    text, spans = marked(SOURCE.replace('"n", "type": "note"',
                                        '"n", "type": "note", "retries": 1'))
    uri = await opened(client, "hover", text)
    # a node reference in a condition: kind, title, first prompt line, run status, output
    # (the run just written shows once the server has seen it: the first answers may not)
    result = await eventually(lambda: hover_text(client, uri, text, spans[3][0] + 1),
                              lambda result: "abcdef01" in result.contents.value)
    value = result.contents.value
    for part in ("review", "agent", "Review it", "Do a review", "✓ done", "abcdef01",
                 '"verdict": "ok"'):
        assert part in value, (part, value)
    assert "thoroughly" not in value
    assert as_tuple(result.range) == as_tuple(span_range(text, *spans[3], client.encoding))
    # a skipped node referenced from nowhere but its id
    hi = text.index('"hi"') + 1
    assert "⤼ skipped" in (await hover_text(client, uri, text, hi)).contents.value
    # a kind
    kind = text.index('"condition"') + 2
    assert "condition" in (await hover_text(client, uri, text, kind)).contents.value
    assert "skips" in (await hover_text(client, uri, text, kind)).contents.value
    # a field: rule, range, default
    retries_text = SOURCE.replace('"prompt": "Do a review', '"retries": 2, "prompt": "Do a review')
    text2, _ = marked(retries_text)
    uri2 = await opened(client, "hover-field", text2)
    field = (await hover_text(client, uri2, text2, text2.index('"retries"') + 2)).contents.value
    for part in ("retries", "0–3", "default", "Rule `retries`"):
        assert part in field, (part, field)
    # a path segment in a condition: its value in the newest run
    seg = (await hover_text(client, uri, text, text.index("verdict ==") + 2)).contents.value
    assert '"ok"' in seg
    # a field on the wrong kind says so
    wrong = (await hover_text(client, uri, text, text.index('"retries": 1') + 2)).contents.value
    assert "not a field of note" in wrong
    # whitespace: nothing
    assert await hover_text(client, uri, text, text.index("\n") + 1) is None


async def test_hover_on_model_says_whether_the_trust_gate_is_open(client):
    text = SOURCE.replace('"title": "Review it",', '"title": "Review it", "model": "big",')
    uri = await opened(client, "hover-model", text)
    config = HERMES_HOME / "config.yaml"
    gate = "plugins.entries.visual-workflow.llm.allow_model_override"
    try:
        for offset in (text.index('"model"') + 2, text.index('"big"') + 2):
            closed = (await hover_text(client, uri, text, offset)).contents.value
            assert "**Trust gate closed**" in closed and f"{gate}: true" in closed, closed
            assert str(config) in closed
        config.write_text("plugins: {entries: {visual-workflow: {llm: "
                          "{allow_model_override: true}}}}\n")
        opened_ = (await hover_text(client, uri, text, text.index('"big"') + 2)).contents.value
        assert "**Trust gate open**" in opened_ and f"{gate} is true in {config}" in opened_
        other = (await hover_text(client, uri, text, text.index('"title"') + 2)).contents.value
        assert "Trust gate" not in other
    finally:
        config.unlink(missing_ok=True)
