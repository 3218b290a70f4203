"""Settings chosen while the server starts are in effect for its first command (issue 45).

VS Code sends the settings it had when it started the server as initializationOptions;
the user may choose an agent meanwhile, which the server learns from its
workspace/configuration pull after `initialized`.  A command sent right after
`initialized` (the extension sends one the moment the client runs) must wait for that
answer: here the client answers the pull late (0.8 s), and `hwf.startRun` is sent at
once.  Was: the run parked with "no agent seam configured".
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient
from runs_helpers import RunsEnv, chain_design, execute, make_runs_client, open_design
from support.lsp import capabilities

ENV = RunsEnv("early-settings")
LATE_S = 0.8


async def _late_configuration(client: LanguageClient,
                              params: types.ConfigurationParams) -> list[Any]:
    await asyncio.sleep(LATE_S)
    return [client.get_configuration(section=item.section) for item in params.items]


def _late_answering_client() -> LanguageClient:
    return make_runs_client({types.WORKSPACE_CONFIGURATION: _late_configuration})


CONFIG = ClientServerConfig(server_command=ENV.config().server_command,
                            server_env=ENV.config().server_env,
                            client_factory=_late_answering_client)


@pytest_lsp.fixture(config=CONFIG, params=["stale", "given"])
async def client(lsp_client: LanguageClient, request: Any):
    agent = {"agent": {"command": ENV.agent_command()}}
    lsp_client.set_configuration(agent, section="hwf")  # what the pull answers: the agent
    given = {"settings": {"hwf": agent}} if request.param == "given" else {"settings": {}}
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=capabilities("visual-studio-code"), root_uri=ENV.workspace.as_uri(),
        initialization_options=given))
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_the_first_command_uses_the_settings_of_the_pull(client: LanguageClient):
    uri = ENV.uri("early")
    open_design(client, uri, chain_design("early", ["draft"]))
    ENV.reset_calls()
    summary = await execute(client, "hwf.startRun", uri)  # at once: the pull is unanswered
    assert summary["status"] == "completed", summary
    assert ENV.calls(), "the agent command of the settings was not used"
