"""A real hwf-lsp process over stdio, driven by pytest-lsp as VS Code and as Neovim.

The server runs with HERMES_HOME set to a temporary directory shared by the
session; tests that need run data write run files there under design names of
their own, so tests do not see each other's runs.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from support.lsp import CLIENTS, client_fixture

HERMES_HOME = Path(tempfile.mkdtemp(prefix="hwf-lsp-test-home-"))
WORKSPACE = Path(tempfile.mkdtemp(prefix="hwf-lsp-test-ws-"))
os.environ["HWF_TEST_HERMES_HOME"] = str(HERMES_HOME)
os.environ["HWF_TEST_WORKSPACE"] = str(WORKSPACE)

from helpers_lsp import server_config  # noqa: E402 - reads the variables set just above

SERVER = server_config()


client = client_fixture(SERVER, WORKSPACE, clients=CLIENTS)


