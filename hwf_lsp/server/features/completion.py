"""textDocument/completion: analysis.completion_items at the cursor, as text edits; in a
design test file, analysis.design_test_text's node ids, options and step states."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types
from pygls.capabilities import get_capability

from hwf_lsp.analysis.completion_items import complete
from hwf_lsp.analysis.design_test_text import complete_test_file
from hwf_lsp.server import convert
from hwf_lsp.server.design_test_documents import TEST_KIND
from hwf_lsp.server.features.request import on_design, on_test_file
from hwf_lsp.server.guard import guarded

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer

TRIGGER_CHARACTERS = ['"', ":", "."]
"""Where completion opens by itself: a key or a value's string (`"`), a value (`:`), the next
part of a condition's path (`.`), as vscode-json-languageservice opens on `"` and `:`.
Not on `,`, space, `{` or `[`: a client that inserts the first item as you type on
(Neovim's default `completeopt`) would write an item into every gap a person types; there,
completion is asked for (`<C-x><C-o>`, `C-M-i`, Ctrl+Space)."""


def supports_markdown(server: HwfServer, path: str) -> bool:
    formats = get_capability(server.client_capabilities, path, None) or []
    return types.MarkupKind.Markdown in formats


def expands_snippets(server: HwfServer, params: types.CompletionParams | None = None) -> bool:
    """Whether the way the client completes this time expands a snippet item.  Neovim 0.11
    says snippetSupport, yet its `vim.lsp.omnifunc` (`<C-x><C-o>`) inserts a snippet item's
    label as text; a list Neovim opens by itself on a trigger character comes from
    `vim.lsp.completion` (autotrigger), which expands snippets, and the omnifunc never asks
    that way.  So Neovim gets snippets for a TriggerCharacter request, plain text (which
    both ways insert whole) otherwise."""
    if not says_snippets(server):
        return False
    if not is_neovim(server):
        return True
    context = params.context if params is not None else None
    return context is not None and \
        context.trigger_kind == types.CompletionTriggerKind.TriggerCharacter


def says_snippets(server: HwfServer) -> bool:
    return bool(get_capability(server.client_capabilities,
                               "text_document.completion.completion_item.snippet_support", False))


def is_neovim(server: HwfServer) -> bool:
    """Neovim (every version): it inserts an item's text up to the cursor and keeps what
    follows, whatever the edit's range says; other clients apply the range."""
    return getattr(getattr(server, "client_info", None), "name", None) == "Neovim"


def register(server: HwfServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_COMPLETION,
                    types.CompletionOptions(trigger_characters=TRIGGER_CHARACTERS))
    @guarded()
    def completion(params: types.CompletionParams) -> types.CompletionList | None:
        markdown = supports_markdown(
            server, "text_document.completion.completion_item.documentation_format")
        insert_replace = bool(get_capability(
            server.client_capabilities,
            "text_document.completion.completion_item.insert_replace_support", False))
        snippets = expands_snippets(server, params)
        neovim_snippets = snippets and is_neovim(server)
        past_cursor = insert_replace or not is_neovim(server) or neovim_snippets
        at = on_design(server, params) or on_test_file(server, params)
        if at is None:
            return None
        offset = at.offset(params.position)

        def items_at(snippets: bool, past_cursor: bool) -> list:
            if at.analysis.kind == TEST_KIND:
                return complete_test_file(at.doc, offset, at.analysis.design_under_test,
                                          snippets=snippets, past_cursor=past_cursor)
            return complete(at.doc, offset, run=at.analysis.run, snippets=snippets,
                            past_cursor=past_cursor, design=at.design)

        items = items_at(snippets, past_cursor)
        if neovim_snippets:
            _delete_past_the_cursor(items, offset)
        elif is_neovim(server) and says_snippets(server) and any(i.reuses_quote for i in items):
            _snippets_past_a_kept_quote(items, items_at(True, True), offset)
        return convert.completion_list(items, at.lines, at.encoding, markdown, insert_replace)


def _snippets_past_a_kept_quote(items: list, snippet_items: list, offset: int) -> None:
    """Neovim 0.11 asking Invoked (`<C-x><C-o>`, `vim.lsp.completion.get()`): an item that no
    plain text can serve (a number or list field in an auto-closed `"|"`: the key alone) is
    sent as its snippet, which deletes that quote.  With the completion block enabled Neovim
    expands it on CompleteDone (`"retries": 0`); the omnifunc alone inserts its label, which
    is the key alone the plain item gave."""
    reaching = {item.label: item for item in snippet_items
                if item.snippet and item.start <= offset < item.end and item.cursor == item.end}
    for i, item in enumerate(items):
        whole = reaching.get(item.label)
        if whole is not None and item.reuses_quote and item.kind == whole.kind:
            whole.preselect, whole.sort_text = item.preselect, item.sort_text
            items[i] = whole
    _delete_past_the_cursor(items, offset)


def _delete_past_the_cursor(items: list, offset: int) -> None:
    """Neovim expands a snippet at the cursor, after putting the text back as it was when it
    asked and applying the additional edits: what an item replaces past the cursor (a
    string's closing quote before a number field) becomes an additional edit deleting it."""
    for item in items:
        if item.snippet and item.start <= offset < item.end and item.cursor == item.end:
            item.additional_edits = (*item.additional_edits, (offset, item.end, ""))
            item.end = item.cursor = offset
