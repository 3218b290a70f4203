"""Helpers for the run tests: a client that records what run commands make the server send.

Every run test module gets its own Hermes home and workspace (temp dirs), a real
hwf-lsp process, and the example agent (examples/agents/echo_agent.py) as the
agent command, with a call log so a test can count which steps called it.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

REPO = Path(__file__).resolve().parents[2]
ECHO_AGENT = REPO / "examples" / "agents" / "echo_agent.py"
RUNS_CHANGED = "hwf/runsChanged"


class RunsEnv:
    """Temp Hermes home + workspace for one test module."""

    def __init__(self, prefix: str) -> None:
        self.home = Path(tempfile.mkdtemp(prefix=f"hwf-runs-{prefix}-home-"))
        self.workspace = Path(tempfile.mkdtemp(prefix=f"hwf-runs-{prefix}-ws-"))
        self.runs_dir = self.home / "workflow-runs"
        self.call_log = self.workspace / "agent-calls.log"

    def uri(self, name: str) -> str:
        return (self.workspace / f"{name}.hwf.json").as_uri()

    def agent_command(self, sleep: float = 0) -> list[str]:
        """The example agent, logging its calls to `call_log` (via `env`, not a shell)."""
        argv = ["env", f"HWF_AGENT_CALL_LOG={self.call_log}"]
        if sleep:
            argv.append(f"HWF_AGENT_SLEEP={sleep}")
        return argv + [sys.executable, str(ECHO_AGENT)]

    def calls(self) -> list[str]:
        """Correlation ids of the agent calls since the last reset."""
        try:
            return self.call_log.read_text().split()
        except FileNotFoundError:
            return []

    def reset_calls(self) -> None:
        self.call_log.unlink(missing_ok=True)

    def load_run(self, run_id: str) -> dict[str, Any]:
        return json.loads((self.runs_dir / f"{run_id}.json").read_text())

    def config(self) -> ClientServerConfig:
        env = {**os.environ, "HERMES_HOME": str(self.home)}
        env.pop("HWF_AGENT_COMMAND", None)
        return ClientServerConfig(
            server_command=[sys.executable, "-m", "hwf_lsp"],
            client_factory=make_runs_client,
            server_env=env,
        )


def _accept_registration(client: LanguageClient, params: object) -> None:
    """client/registerCapability (the server registers its workspace file watcher)."""


def make_runs_client(overrides: dict[str, Any] | None = None) -> LanguageClient:
    """pytest-lsp's client plus handlers for what the run features send; `overrides`
    replace pytest-lsp's own handlers (method: handler(client, params))."""
    client = LanguageClient(converter_factory=default_converter)
    features = dict(DEFAULT_CLIENT_FEATURES)
    features[types.CLIENT_REGISTER_CAPABILITY] = _accept_registration  # file watcher
    features.update(overrides or {})
    register_lsp_features(client, features)
    client.runs_changed = []  # (time.time() on arrival, params)
    client.lens_refreshes = 0
    client.hint_refreshes = 0
    client.asked = []  # ShowMessageRequestParams
    client.choose = None  # title to pick for window/showMessageRequest (None: dismiss)

    @client.feature(RUNS_CHANGED)
    def runs_changed(params: Any) -> None:
        client.runs_changed.append((time.time(), params))

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def lens_refresh(params: Any) -> None:
        client.lens_refreshes += 1

    @client.feature(types.WORKSPACE_INLAY_HINT_REFRESH)
    def hint_refresh(params: Any) -> None:
        client.hint_refreshes += 1

    @client.feature(types.WINDOW_SHOW_MESSAGE_REQUEST)
    def ask(params: types.ShowMessageRequestParams) -> types.MessageActionItem | None:
        client.asked.append(params)
        return types.MessageActionItem(title=client.choose) if client.choose else None

    return client


def runs_of(params: Any) -> list[dict[str, Any]]:
    """The run summaries of a hwf/runsChanged notification (a full list, `runs`, or a
    delta, `changed`), however pygls structured it."""
    found = []
    for key in ("runs", "changed"):
        runs = params.get(key) if isinstance(params, dict) else getattr(params, key, None)
        found += [dict(r._asdict()) if hasattr(r, "_asdict") else r for r in runs or []]
    return found


async def execute(client: LanguageClient, command: str, *arguments: Any) -> Any:
    return await client.workspace_execute_command_async(
        types.ExecuteCommandParams(command=command, arguments=list(arguments)))


async def configure(client: LanguageClient, settings: dict[str, Any]) -> None:
    """Change the server's `hwf` settings (pushed, and answered the same when pulled)."""
    current = client.get_configuration(section="hwf") or {}
    merged = {**current, **settings}
    client.set_configuration(merged, section="hwf")
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"hwf": merged}))
    await asyncio.sleep(0.05)


def open_design(client: LanguageClient, uri: str, design: dict[str, Any] | str,
                version: int = 1) -> str:
    text = design if isinstance(design, str) else json.dumps(design, indent=2)
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="json", version=version,
                                             text=text)))
    return text


def change_design(client: LanguageClient, uri: str, design: dict[str, Any],
                  version: int) -> str:
    text = json.dumps(design, indent=2)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
    return text


async def lenses(client: LanguageClient, uri: str) -> list[tuple[int, str, str, list[Any]]]:
    """(line, title, command, arguments) of the document's code lenses."""
    found = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    return [(lens.range.start.line, lens.command.title, lens.command.command,
             list(lens.command.arguments or [])) for lens in found or []]


async def wait_for(predicate: Any, timeout: float = 10.0, step: float = 0.01) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        await asyncio.sleep(step)


def chain_design(name: str, ids: list[str], tail: list[dict[str, Any]] | None = None,
                 prompts: dict[str, str] | None = None) -> dict[str, Any]:
    """A trigger then agent steps one after the other, then `tail` nodes."""
    nodes: list[dict[str, Any]] = [{"id": "start", "type": "trigger"}]
    previous = "start"
    for node_id in ids:
        prompt = (prompts or {}).get(node_id, f"Do step {node_id}.")
        nodes.append({"id": node_id, "type": "agent", "prompt": prompt, "after": [previous]})
        previous = node_id
    nodes.extend(tail or [])
    return {"name": name, "nodes": nodes}
