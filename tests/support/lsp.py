"""The LSP client fixture and request builders shared by every end-to-end server test."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

CLIENTS = ("visual-studio-code", "neovim")
CLIENT_INFO = {"visual-studio-code": types.ClientInfo(name="Visual Studio Code", version="1.96.0"),
               "neovim": types.ClientInfo(name="Neovim", version="0.11.4")}
"""What each client says it is: the server completes for Neovim in the form it inserts."""


def message(method: str, params: dict, msg_id: int | None = None) -> dict:
    """A JSON-RPC message as a dict, for tests that hand it to the protocol in process."""
    body: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if msg_id is not None:
        body["id"] = msg_id
    return body


def doc_id(uri: str) -> types.TextDocumentIdentifier:
    return types.TextDocumentIdentifier(uri=uri)


def capabilities(client_name: str) -> types.ClientCapabilities:
    """A real client's recorded capabilities; VS Code's (pytest-lsp knows 1.65) plus inlay
    hints, as VS Code has them today.

    Diagnostics are pushed to a client that does not pull them, so the tests that wait for
    published diagnostics run without the pull capability (Neovim 0.11 records it; Neovim
    before 0.10, Emacs and Helix do not have it).  `<name>+pull` is that client pulling
    (tests/server/test_lsp_pull_diagnostics.py); `<name>+flat` takes no symbol hierarchy."""
    name, _, mode = client_name.partition("+")
    caps = client_capabilities(name)
    if name == "visual-studio-code":
        caps.workspace.inlay_hint = types.InlayHintWorkspaceClientCapabilities(
            refresh_support=True)
        caps.text_document.inlay_hint = types.InlayHintClientCapabilities()
    if mode == "pull":
        caps.text_document.diagnostic = types.DiagnosticClientCapabilities(
            related_information=True)
        caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(
            refresh_support=True)
    else:
        caps.text_document.diagnostic = None
    if mode == "flat":
        caps.text_document.document_symbol.hierarchical_document_symbol_support = False
    return caps


def client_fixture(config: ClientServerConfig, workspace: Path, *,
                   clients: Sequence[str] = ("visual-studio-code",),
                   settings: dict[str, Any] | None = None,
                   before: Callable[[], None] | None = None, scope: str = "module"):
    """A pytest-lsp client (one server per module unless `scope` says otherwise) per name in `clients`, initialized on `workspace`
    with the `hwf` settings given (as initializationOptions and as workspace/configuration).

    The client records `init_result`, `encoding` (negotiated), `client_name` and
    `versions`. `before` runs before each client's server starts its session."""

    @pytest_lsp.fixture(config=config, params=list(clients), scope=scope)
    async def client(lsp_client: LanguageClient, request):
        if before is not None:
            before()
        params = types.InitializeParams(
            capabilities=capabilities(request.param),
            client_info=CLIENT_INFO.get(request.param),
            root_uri=workspace.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=workspace.as_uri(), name="ws")],
            initialization_options={"settings": {"hwf": settings}} if settings else None,
        )
        result = await lsp_client.initialize_session(params)
        if settings:
            lsp_client.set_configuration(settings, section="hwf")
        enc = result.capabilities.position_encoding
        lsp_client.init_result = result
        lsp_client.encoding = getattr(enc, "value", enc) or "utf-16"
        lsp_client.client_name = request.param
        lsp_client.versions = {}
        yield
        await lsp_client.shutdown_session()

    return client
