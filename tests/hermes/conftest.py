"""Fixtures for the plugin's tests against the real Hermes Agent 0.19.0 (`make test-hermes`).

Every test gets a fresh `HERMES_HOME` (a temp dir) with a config.yaml that enables
the plugin, and Hermes' own plugin manager re-discovers plugins in it, so the
tools in Hermes' global `tools.registry` always serve the current home.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
VENV_BIN = Path(sys.executable).parent
HERMES = str(VENV_BIN / "hermes")
HWF = str(VENV_BIN / "hwf")
sys.path.insert(0, str(HERE))  # fake_openai, lsp_client, designs

ENABLED = "plugins:\n  enabled: [visual-workflow]\n"


def gate_config(allow: Any = True, allowed_models: list[str] | None = None,
                enabled: bool = True) -> str:
    """A config.yaml enabling the plugin, with the model-override gate set to `allow`."""
    llm: dict[str, Any] = {"allow_model_override": allow}
    if allowed_models is not None:
        llm["allowed_models"] = allowed_models
    plugins: dict[str, Any] = {"entries": {"visual-workflow": {"llm": llm}}}
    if enabled:
        plugins["enabled"] = ["visual-workflow"]
    return json.dumps({"plugins": plugins})  # JSON is YAML


@pytest.fixture(autouse=True)
def hermes_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "hermes-home"
    home.mkdir()
    (home / "config.yaml").write_text(ENABLED)
    monkeypatch.setenv("HERMES_HOME", str(home))
    monkeypatch.delenv("HWF_AGENT_COMMAND", raising=False)
    monkeypatch.delenv("HWF_DELIVERY_COMMAND", raising=False)
    return home


@pytest.fixture
def manager(hermes_home: Path) -> Any:
    """Hermes' plugin manager with the plugin loaded by Hermes' own discovery.

    Discovery (54 bundled plugins, ~0.5 s) runs again only when the last test left the
    plugin unloaded (test_loader.py re-discovers on purpose): the handlers resolve
    `HERMES_HOME` on every call, so a loaded plugin serves this test's fresh home.
    """
    from hermes_cli.plugins import get_plugin_manager

    found = get_plugin_manager()
    ours = found._plugins.get("visual-workflow")
    if ours is None or not ours.enabled or "workflow" not in found._plugin_commands:
        found.discover_and_load(force=True)
    return found


@pytest.fixture
def dispatch(manager: Any) -> Callable[..., dict[str, Any]]:
    """Call a tool through Hermes' own `tools.registry.dispatch`; the parsed JSON answer."""
    from tools.registry import registry

    def call(name: str, args: Any) -> dict[str, Any]:
        raw = registry.dispatch(name, args)
        assert isinstance(raw, str), raw
        assert "Traceback" not in raw, raw
        answer = json.loads(raw)
        assert_host_reads_right(name, raw, answer)
        return answer

    return call


def assert_host_reads_right(name: str, raw: str, answer: Any) -> None:
    """The host's own failure check (`agent/display.py`, not a copy) flags `raw` exactly
    when the answer is an error: a set top-level `error` (docs/hermes.md, "Tools")."""
    from agent.display import _detect_tool_failure

    failed, suffix = _detect_tool_failure(name, raw)
    expected = isinstance(answer, dict) and bool(answer.get("error"))
    assert failed is expected, f"{name}: host says failed={failed}{suffix} for {raw[:500]}"


def hermes_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HWF_", "OPENAI_"))}
    env.update({"HERMES_HOME": str(home), "NO_COLOR": "1", **extra})
    return env


BAD_DESIGNS = {"loop": "a symlink loop", "zero": "escapes", "fifo": "named pipe (FIFO)",
               "corrupt": "is corrupt"}
BAD_RUNS = {"abcdef000001": "not a regular file", "abcdef000002": "not a regular file",
            "abcdef000003": "not a regular file"}
"""The bad entries `add_bad_entries` makes, and a word of the reason each is skipped for."""


def add_bad_entries(home: Path) -> None:
    """One of each bad entry of issue 31 (item 6) beside the good ones: a symlink loop, a
    link to /dev/zero, a FIFO, a corrupt file; in the runs too."""
    designs, runs = home / "workflow-designs", home / "workflow-runs"
    designs.mkdir(exist_ok=True)
    runs.mkdir(exist_ok=True)
    os.symlink("loop.json", designs / "loop.json")
    os.symlink("/dev/zero", designs / "zero.json")
    os.mkfifo(designs / "fifo.json")
    (designs / "corrupt.json").write_text("{not json")
    loop, zero, fifo = BAD_RUNS
    os.symlink(f"{loop}.json", runs / f"{loop}.json")
    os.symlink("/dev/zero", runs / f"{zero}.json")
    os.mkfifo(runs / f"{fifo}.json")


def stub_dashboard_source(target: Path, *, built: bool = True) -> Path:
    """The tab's source as `make dashboard-js` leaves it (the package's manifest, a stub
    bundle in dist/), or, not `built`, the manifest alone."""
    from hwf_lsp.hermes.install import dashboard_source

    (target / "dist").mkdir(parents=True)
    (target / "manifest.json").write_bytes((dashboard_source() / "manifest.json").read_bytes())
    if built:
        (target / "dist" / "canvas-dashboard.js").write_text("/* stub bundle */\n")
        (target / "dist" / "canvas-dashboard.css").write_text("/* stub */\n")
    return target


def tree(root: Path) -> dict[str, bytes]:
    """Every file under `root` and its bytes: proof that nothing was written."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


@pytest.fixture
def fake(hermes_home: Path) -> Any:
    """A scripted model server on 127.0.0.1, Hermes' configured model (provider custom)."""
    from fake_openai import FakeOpenAI

    with FakeOpenAI(lambda messages: {"content": "ok"}) as server:
        (hermes_home / "config.yaml").write_text(json.dumps({
            "model": {"provider": "custom", "base_url": server.base_url,
                      "default": server.model, "api_key": "sk-offline"},
            "plugins": {"enabled": ["visual-workflow"]},
        }))
        yield server
