"""Snippets for Neovim only when its `vim.lsp.completion` opened the list on a trigger
character (issue 43): that path expands them; the omnifunc (`<C-x><C-o>`) asks Invoked
and inserts a snippet item's label, so it gets plain text. Other clients that say
snippetSupport get snippets however they ask."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from lsprotocol import types

from hwf_lsp.server.features.completion import expands_snippets

INVOKED, TRIGGERED = (types.CompletionTriggerKind.Invoked,
                      types.CompletionTriggerKind.TriggerCharacter)


def ask(kind: types.CompletionTriggerKind | None) -> types.CompletionParams:
    return types.CompletionParams(
        text_document=types.TextDocumentIdentifier(uri="file:///d.hwf.json"),
        position=types.Position(line=0, character=0),
        context=types.CompletionContext(trigger_kind=kind) if kind else None)


@pytest.mark.parametrize(("client", "snippets", "kind", "expected"), [
    ("Neovim", True, TRIGGERED, True),   # vim.lsp.completion's autotrigger
    ("Neovim", True, INVOKED, False),    # the omnifunc, or vim.lsp.completion.get()
    ("Neovim", True, None, False),
    ("Neovim", False, TRIGGERED, False),  # Neovim 0.7 says no snippets
    ("Visual Studio Code", True, INVOKED, True),
    ("Emacs", False, TRIGGERED, False),   # eglot without yasnippet
])
def test_snippets_where_this_way_of_completing_expands_them(client, snippets, kind, expected):
    server = SimpleNamespace(
        client_info=types.ClientInfo(name=client),
        client_capabilities=types.ClientCapabilities(
            text_document=types.TextDocumentClientCapabilities(
                completion=types.CompletionClientCapabilities(
                    completion_item=types.ClientCompletionItemOptions(
                        snippet_support=snippets)))))
    assert expands_snippets(server, ask(kind)) is expected
