"""Settings and design globs: parsing, matching, and both ways a client can send them."""

from __future__ import annotations

import pytest
import pytest_lsp
from helpers_lsp import WORKSPACE, open_doc, server_config, wait_published
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from hwf_lsp.server.documents import is_design_uri
from hwf_lsp.server.settings import DEFAULT_DESIGN_GLOBS, Settings


@pytest.mark.parametrize(("raw", "globs"), [
    ({"settings": {"hwf": {"designs": {"globs": ["*.flow"]}}}}, ("*.flow",)),
    ({"hwf.designs.globs": ["*.flow"]}, ("*.flow",)),
    ({"designs": {"globs": ["*.flow"]}}, ("*.flow",)),
    ({"designs": {"globs": "*.flow"}}, DEFAULT_DESIGN_GLOBS),
    ({"designs": {"globs": []}}, DEFAULT_DESIGN_GLOBS),
    ([1, 2], DEFAULT_DESIGN_GLOBS),
    (None, DEFAULT_DESIGN_GLOBS),
])
def test_settings_shapes(raw, globs):
    assert Settings().merged(raw).design_globs == globs


def test_other_settings():
    settings = Settings().merged({"hwf": {"agent": {"command": ["x", "--y"],
                                                    "allowModelOverride": True},
                                          "hermesHome": "/tmp/h", "delivery": {"command": 3}}})
    assert settings.agent_command == ("x", "--y") and settings.allow_model_override is True
    assert str(settings.home()) == "/tmp/h" and settings.delivery_command is None


@pytest.mark.parametrize(("config", "setting", "open_"), [
    (None, True, False),
    ("plugins: {entries: {visual-workflow: {llm: {allow_model_override: true}}}}\n", True, True),
    ("plugins: {entries: {visual-workflow: {llm: {allow_model_override: true}}}}\n", False, False),
    ("plugins: {entries: {visual-workflow: {llm: {allow_model_override: false}}}}\n", True, False),
])
def test_the_editor_setting_only_narrows_the_trust_gate(tmp_path, config, setting, open_):
    if config is not None:
        (tmp_path / "config.yaml").write_text(config)
    settings = Settings().merged({"hermesHome": str(tmp_path),
                                  "agent": {"allowModelOverride": setting}})
    gate = settings.model_gate()
    assert gate.open is open_ and gate.permits("m") is open_
    assert (gate.narrowed_by is not None) is (config is not None and "true" in config
                                              and not setting)


@pytest.mark.parametrize(("uri", "design"), [
    ("file:///p/workflow-designs/a.json", True),
    ("file:///p/q/workflow-designs/a.json", True),
    ("file:///workflow-designs/a.json", True),
    ("file:///p/workflow-designs/sub/a.json", False),
    ("file:///p/a.hwf.json", True),
    ("file:///p/a.hwf.json.bak", False),
    ("file:///p/package.json", False),
    ("file:///p/my%20designs/x.hwf.json", True),
    ("untitled:Untitled-1", False),
    ("file:///C:/Users/x/workflow-designs/a.json", True),
])
def test_default_globs(uri, design):
    assert is_design_uri(uri, DEFAULT_DESIGN_GLOBS) is design


def test_relative_globs_match_inside_workspace_folders():
    assert is_design_uri("file:///ws/flows/a.json", ("flows/*.json",), ("file:///ws",))
    assert not is_design_uri("file:///other/flows/a.json", ("flows/*.json",), ("file:///ws",))
    assert is_design_uri("file:///ws/a.json", ("{flows,x}/*.json", "*.json"), ("file:///ws",))


@pytest_lsp.fixture(config=server_config(), params=["initialization-options", "workspace-configuration"],
                    scope="module")
async def configured(lsp_client: LanguageClient, request):
    options = None
    if request.param == "initialization-options":
        options = {"settings": {"hwf": {"designs": {"globs": ["**/*.flow.json"]}}}}
    else:
        lsp_client.set_configuration({"designs": {"globs": ["**/*.flow.json"]}}, section="hwf")
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"),
        root_uri=WORKSPACE.as_uri(), initialization_options=options))
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio(loop_scope="module")
async def test_client_globs_replace_the_defaults(configured):
    client = configured
    client.versions = {}
    broken = '{"nodes": ['
    flow = (WORKSPACE / f"a-{id(client)}.flow.json").as_uri()
    default = (WORKSPACE / f"a-{id(client)}.hwf.json").as_uri()
    open_doc(client, flow, broken)
    open_doc(client, default, broken)
    # published once the settings are in (with workspace/configuration, after `initialized`)
    assert await wait_published(client, flow, 1)
    marker = (WORKSPACE / f"m-{id(client)}.flow.json").as_uri()
    open_doc(client, marker, broken)
    await wait_published(client, marker, 1)
    # with workspace/configuration the defaults apply until the answer arrives: anything
    # said about the .hwf.json file before then must have been withdrawn
    said = [p for p in client.published if p.uri == default]
    assert not said or not said[-1].diagnostics
