"""The edit form a client gets (issue 29): an InsertReplaceEdit whose insert range ends at
the cursor where the client has insertReplaceSupport, else a TextEdit that ends at the
cursor; snippets only where every way of completing expands them."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from lsprotocol import types

from hwf_lsp.analysis.completion_items import complete
from hwf_lsp.jsontext.jsontree import parse
from hwf_lsp.jsontext.positions import LineIndex
from hwf_lsp.server import convert
from hwf_lsp.server.features.completion import expands_snippets

TEXT = '{"name":"d","nodes":[{"id":"start","type":"trigger"},{"id":"o","type":"output",' \
    '"deliver":"c"}]}'
CURSOR = TEXT.index('"c"') + 2


@pytest.mark.parametrize(("insert_replace", "form", "insert_end", "replace_end"), [
    (True, types.InsertReplaceEdit, CURSOR, CURSOR),
    (False, types.TextEdit, CURSOR, None),
])
def test_the_edit_form_follows_the_capability(insert_replace, form, insert_end, replace_end):
    (item,) = [i for i in complete(parse(TEXT), CURSOR, snippets=False) if i.label == "channel"]
    lines = LineIndex(TEXT)
    converted = convert.completion_item(item, lines, "utf-16", True, insert_replace)
    edit = converted.text_edit
    assert isinstance(edit, form)
    span = edit.insert if form is types.InsertReplaceEdit else edit.range
    assert span.end.character == insert_end  # never past the cursor: the quote stays
    if replace_end is not None:
        assert edit.replace.end.character == replace_end
    assert edit.new_text == "channel"


def capabilities(snippets: bool) -> types.ClientCapabilities:
    return types.ClientCapabilities(text_document=types.TextDocumentClientCapabilities(
        completion=types.CompletionClientCapabilities(
            completion_item=types.ClientCompletionItemOptions(snippet_support=snippets))))


@pytest.mark.parametrize(("snippets", "name", "expected"), [
    (True, "Visual Studio Code", True),
    (True, "Neovim", False),  # its omnifunc inserts a snippet item's label
    (False, "Emacs", False),
    (True, None, True),
])
def test_snippets_only_where_every_way_of_completing_expands_them(snippets, name, expected):
    server = SimpleNamespace(client_capabilities=capabilities(snippets),
                             client_info=types.ClientInfo(name=name) if name else None)
    assert expands_snippets(server) is expected
