"""A real hwf-lsp process over stdio, driven by pytest-lsp as VS Code and as Neovim.

The server runs with HERMES_HOME set to a temporary directory shared by the
session; tests that need run data write run files there under design names of
their own, so tests do not see each other's runs.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

HERMES_HOME = Path(tempfile.mkdtemp(prefix="hwf-lsp-test-home-"))
WORKSPACE = Path(tempfile.mkdtemp(prefix="hwf-lsp-test-ws-"))
os.environ["HWF_TEST_HERMES_HOME"] = str(HERMES_HOME)
os.environ["HWF_TEST_WORKSPACE"] = str(WORKSPACE)

from helpers_lsp import server_config  # noqa: E402 - reads the variables set just above

CLIENTS = ["visual-studio-code", "neovim"]


SERVER = server_config()


@pytest_lsp.fixture(config=SERVER, params=CLIENTS, scope="module")
async def client(lsp_client: LanguageClient, request):
    params = types.InitializeParams(
        capabilities=client_capabilities(request.param),
        root_uri=WORKSPACE.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=WORKSPACE.as_uri(), name="ws")],
    )
    result = await lsp_client.initialize_session(params)
    enc = result.capabilities.position_encoding
    lsp_client.encoding = getattr(enc, "value", enc) or "utf-16"
    lsp_client.client_name = request.param
    lsp_client.versions = {}
    yield
    await lsp_client.shutdown_session()


