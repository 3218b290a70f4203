"""The standard editing features end to end, as VS Code and as Neovim, on text with an
emoji before every spot (UTF-16 and UTF-8 columns differ from code points there):
formatting (document, range, on type), folding, selection ranges, document highlight,
the hierarchical outline, call hierarchy, semantic tokens in conditions, the comparison
hover, and diagnostics with related places, tags and rule links."""

from __future__ import annotations

import asyncio
import json

import pytest
from helpers_lsp import (
    apply_edits,
    as_tuple,
    design_uri,
    marked,
    open_doc,
    position,
    span_range,
    wait_published,
    write_run,
)
from lsprotocol import types
from support.lsp import doc_id

pytestmark = pytest.mark.asyncio(loop_scope="module")

# «…» marks every occurrence of the id `review`
SOURCE = """{"name": "edit-😀", "nodes": [
  {"id": "t", "type": "trigger", "title": "😀 start"},
  {"id": "«review»", "type": "agent", "title": "😀😀", "prompt": "p", "after": ["t"]},
  {"id": "ok", "type": "condition", "title": "😀", "expression": "out.«review».score >= 3",
   "after": ["«review»"]},
  {"id": "n", "type": "note", "text": "😀"}
]}
"""
OPTIONS = types.FormattingOptions(tab_size=2, insert_spaces=True)


async def opened(client, name: str, text: str) -> str:
    uri = design_uri(f"{name}-{client.client_name}")
    open_doc(client, uri, text)
    await wait_published(client, uri, 1)
    return uri


def at(client, text: str, offset: int) -> types.Position:
    return position(text, offset, client.encoding)


async def test_formatting_document_range_and_on_type(client):
    text = '{"name": "fmt", "nodes": [{"id": "t", "type": "trigger", "title": "😀"},' \
           '{"id":"a","type":"agent","prompt":"😀 p","after":["t"]}]}'
    uri = await opened(client, "fmt", text)
    edits = await client.text_document_formatting_async(types.DocumentFormattingParams(
        text_document=doc_id(uri), options=OPTIONS))
    out = apply_edits(text, edits, client.encoding)
    assert out == json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    tabs = await client.text_document_formatting_async(types.DocumentFormattingParams(
        text_document=doc_id(uri), options=types.FormattingOptions(tab_size=4,
                                                                   insert_spaces=False)))
    assert "\n\t\t{" in apply_edits(text, tabs, client.encoding)

    second = text.index('{"id":"a"')
    ranged = await client.text_document_range_formatting_async(
        types.DocumentRangeFormattingParams(
            text_document=doc_id(uri), options=OPTIONS,
            range=span_range(text, second, len(text) - 2, client.encoding)))
    out = apply_edits(text, ranged, client.encoding)
    assert out.startswith(text[:second]) and '"prompt": "😀 p"' in out

    closer = text.index("]}]}") + 1  # the `}` closing the second node
    typed = await client.text_document_on_type_formatting_async(
        types.DocumentOnTypeFormattingParams(
            text_document=doc_id(uri), options=OPTIONS, ch="}",
            position=at(client, text, closer + 1)))
    out = apply_edits(text, typed, client.encoding)
    assert out.startswith(text[:second]) and '"after": [\n' in out
    assert client.init_result.capabilities.document_on_type_formatting_provider \
        .first_trigger_character == "}"


async def test_folding_and_selection_ranges(client):
    text, _ = marked(SOURCE)
    uri = await opened(client, "fold", text)
    folds = await client.text_document_folding_range_async(types.FoldingRangeParams(
        text_document=doc_id(uri)))
    assert [(f.start_line, f.end_line) for f in folds] == [(0, 6), (0, 5), (3, 4)]

    offset = text.index("score")
    (chain,) = await client.text_document_selection_range_async(types.SelectionRangeParams(
        text_document=doc_id(uri), positions=[at(client, text, offset)]))
    expression = text.index('"out.')
    end = text.index('3"') + 2
    assert as_tuple(chain.range) == as_tuple(span_range(text, expression + 1, end - 1,
                                                        client.encoding))
    assert as_tuple(chain.parent.range) == as_tuple(span_range(text, expression, end,
                                                               client.encoding))
    top = chain
    while top.parent is not None:
        top = top.parent
    assert as_tuple(top.range) == as_tuple(span_range(text, 0, len(text.rstrip()),
                                                      client.encoding))


async def test_document_highlight_every_occurrence(client):
    text, spans = marked(SOURCE)
    uri = await opened(client, "highlight", text)
    want = sorted(as_tuple(span_range(text, s, e, client.encoding)) for s, e in spans)
    for start, _end in spans:
        found = await client.text_document_document_highlight_async(
            types.DocumentHighlightParams(text_document=doc_id(uri),
                                          position=at(client, text, start + 1)))
        assert sorted(as_tuple(h.range) for h in found) == want
        kinds = sorted(h.kind for h in found)
        assert kinds == [types.DocumentHighlightKind.Read] * 2 + [
            types.DocumentHighlightKind.Write]


async def test_hierarchical_outline(client):
    text, _ = marked(SOURCE)
    uri = await opened(client, "outline", text)
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=doc_id(uri)))
    assert [s.name for s in symbols] == ["t", "review", "ok", "n"]
    review = symbols[1]
    assert [c.name for c in review.children] == ["id", "type", "title", "prompt", "after"]
    title = review.children[2]
    start = text.index('"title": "😀😀"')
    assert as_tuple(title.range) == as_tuple(span_range(text, start, start + 13,
                                                        client.encoding))
    assert title.kind == types.SymbolKind.String and title.detail == '"😀😀"'
    assert review.children[4].kind == types.SymbolKind.Array


async def test_call_hierarchy_is_the_graph(client):
    text, spans = marked(SOURCE)
    uri = await opened(client, "calls", text)
    for start, _end in spans:
        (item,) = await client.text_document_prepare_call_hierarchy_async(
            types.CallHierarchyPrepareParams(text_document=doc_id(uri),
                                             position=at(client, text, start + 1)))
        assert item.name == "review"
        assert as_tuple(item.selection_range) == as_tuple(span_range(
            text, spans[0][0] - 1, spans[0][1] + 1, client.encoding))
    incoming = await client.call_hierarchy_incoming_calls_async(
        types.CallHierarchyIncomingCallsParams(item=item))
    assert [c.from_.name for c in incoming] == ["t"]
    t_entry = text.index('["t"]') + 1
    assert [as_tuple(r) for r in incoming[0].from_ranges] == [
        as_tuple(span_range(text, t_entry + 1, t_entry + 2, client.encoding))]
    outgoing = await client.call_hierarchy_outgoing_calls_async(
        types.CallHierarchyOutgoingCallsParams(item=item))
    assert [c.to.name for c in outgoing] == ["ok"]
    assert [as_tuple(r) for r in outgoing[0].from_ranges] == [
        as_tuple(span_range(text, *spans[2], client.encoding))]


def decode(data: list[int]) -> list[tuple[int, int, int, int]]:
    out, line, char = [], 0, 0
    for i in range(0, len(data), 5):
        d_line, d_char, length, kind, _ = data[i:i + 5]
        line += d_line
        char = char + d_char if d_line == 0 else d_char
        out.append((line, char, length, kind))
    return out


async def test_semantic_tokens_in_conditions(client):
    text, _ = marked(SOURCE)
    uri = await opened(client, "tokens", text)
    legend = client.init_result.capabilities.semantic_tokens_provider.legend.token_types
    tokens = await client.text_document_semantic_tokens_full_async(
        types.SemanticTokensParams(text_document=doc_id(uri)))
    got = [(legend[k], line, char, length) for line, char, length, k in decode(tokens.data)]
    expected, pos = [], text.index('"out.')
    for word, kind in (("out", "keyword"), ("review", "variable"), ("score", "property"),
                       (">=", "operator"), ("3", "number")):
        pos = text.index(word, pos)
        start, end = position(text, pos, client.encoding), position(text, pos + len(word),
                                                                    client.encoding)
        expected.append((kind, start.line, start.character, end.character - start.character))
        pos += len(word)
    assert got == expected
    ranged = await client.text_document_semantic_tokens_range_async(
        types.SemanticTokensRangeParams(text_document=doc_id(uri), range=span_range(
            text, 0, text.index("review"), client.encoding)))
    assert list(ranged.data) == []


async def test_hover_on_the_operator_shows_the_newest_run(client):
    name = f"hover-op-{client.client_name}"
    text = SOURCE.replace("edit-😀", name).replace("«", "").replace("»", "")
    write_run(name, f"ab{abs(hash(name)) % 10**8:08d}", {"review": {"score": 5}})
    uri = design_uri(name)
    open_doc(client, uri, text)
    await wait_published(client, uri, 1)
    offset = text.index(">=")
    for _ in range(100):  # the run is seen within the watcher's poll
        result = await client.text_document_hover_async(types.HoverParams(
            text_document=doc_id(uri), position=at(client, text, offset + 1)))
        if "true" in result.contents.value:
            break
        await asyncio.sleep(0.05)
    assert "5" in result.contents.value and "true" in result.contents.value
    assert as_tuple(result.range) == as_tuple(span_range(text, offset, offset + 2,
                                                         client.encoding))


async def test_diagnostics_carry_related_places_tags_and_rule_links(client):
    text = '{"name": "rel", "title": "😀", "title": "x", "nodes": [\n' \
           '  {"id": "t", "type": "trigger"},\n' \
           '  {"id": "😀a", "type": "note"},\n' \
           '  {"id": "😀a", "type": "note"}\n]}'
    uri = design_uri(f"related-{client.client_name}")
    open_doc(client, uri, text)
    diagnostics = await wait_published(client, uri, 1)
    by_code = {d.code: d for d in diagnostics}
    dup = by_code["identity"]
    first = text.index('"😀a"')
    (info,) = dup.related_information
    assert info.location.uri == uri
    assert as_tuple(info.location.range) == as_tuple(span_range(text, first, first + 4,
                                                                client.encoding))
    key = by_code["duplicate-key"]
    assert list(key.tags) == [types.DiagnosticTag.Unnecessary]
    assert key.code_description.href.endswith("docs/rules.md#duplicate-key")
    assert dup.code_description.href.endswith("#identity")
