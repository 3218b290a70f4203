"""The hot paths' wire forms (`convert.diagnostic_dicts`, `convert.completion_list_dict`)
are what building the lsprotocol types and unstructuring them with pygls's converter
gives, on every example design, with non-ASCII text and both markup kinds."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.protocol import default_converter
from support.breaks import REPO

from hwf_lsp.analysis.check import check_document
from hwf_lsp.analysis.completion import complete
from hwf_lsp.analysis.jsontree import parse
from hwf_lsp.analysis.positions import LineIndex
from hwf_lsp.server import convert

CONVERTER = default_converter()
EXAMPLES = sorted(REPO.glob("examples/*.hwf.json"))
NON_ASCII = ('{"name": "déjà 😀", "nodes": [{"id": "é1", "type": "trigger"},\n'
             ' {"id": "😀b", "type": "agent", "prompt": "", "after": ["é1", ""]},\n'
             ' {"id": "c", "type": "condition", "expression": "out.😀b.x == 1", "after": []}]}')


def texts() -> list[tuple[str, str]]:
    return [(path.name, path.read_text(encoding="utf-8")) for path in EXAMPLES] + [
        ("non-ascii", NON_ASCII)]


def wire(value: object) -> object:
    return CONVERTER.unstructure(value)


def expected_item(item, lines: LineIndex, encoding: str, markdown: bool) -> dict:
    """The oracle: the CompletionItem the server built before its wire form."""
    return wire(types.CompletionItem(
        label=item.label,
        kind=convert._COMPLETION_KIND.get(item.kind, types.CompletionItemKind.Text),
        detail=item.detail,
        documentation=convert.markup(item.documentation, markdown)
        if item.documentation else None,
        sort_text=item.sort_text, filter_text=item.filter_text,
        preselect=item.preselect or None,
        insert_text_format=types.InsertTextFormat.Snippet if item.snippet
        else types.InsertTextFormat.PlainText,
        text_edit=types.TextEdit(range=convert.to_range(lines, item.start, item.end, encoding),
                                 new_text=item.insert_text),
        additional_text_edits=[convert.text_edit(lines, s, e, new, encoding)
                               for s, e, new in item.additional_edits] or None))


@pytest.mark.parametrize(("name", "text"), texts())
@pytest.mark.parametrize("encoding", ["utf-16", "utf-8"])
def test_completion_wire_form(name: str, text: str, encoding: str) -> None:
    doc, lines = parse(text), LineIndex(text)
    offered = 0
    for offset in range(0, len(text) + 1, max(1, len(text) // 150)):
        items = complete(doc, offset)
        for markdown in (True, False):
            got = convert.completion_list_dict(items, lines, encoding, markdown)
            assert got == {"isIncomplete": items.incomplete,
                           "items": [expected_item(i, lines, encoding, markdown)
                                     for i in items]}
        offered += len(items)
    assert offered > 0, name


@pytest.mark.parametrize(("name", "text"), texts())
@pytest.mark.parametrize("encoding", ["utf-16", "utf-8"])
def test_diagnostic_wire_form(name: str, text: str, encoding: str) -> None:
    broken = text.replace("}", "}}", 1)
    for source in (text, broken):
        findings = check_document(parse(source))
        lines = LineIndex(source)
        assert convert.diagnostic_dicts(findings, lines, encoding, "file:///d.hwf.json") == [
            wire(d) for d in convert.diagnostics(findings, lines, encoding, "file:///d.hwf.json")]
