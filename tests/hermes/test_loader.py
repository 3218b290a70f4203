"""Hermes' own loader finds the plugin (entry point and directory form) and enables it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import HERMES, HWF, hermes_env, stub_dashboard_source

from hwf_lsp.hermes import TOOLSET
from hwf_lsp.hermes.install import (
    MissingBundle,
    dashboard_source,
    missing_bundle_files,
    write_plugin_dir,
)
from hwf_lsp.hermes.tools import AGENT_STEPS_TOOLS, AGENT_STEPS_TOOLSET, TOOL_NAMES


def _ours(manager) -> dict:
    (plugin,) = [p for p in manager.list_plugins() if p["key"] == "visual-workflow"]
    return plugin


def test_entry_point_is_found_but_off_until_enabled(hermes_home: Path, manager) -> None:
    (hermes_home / "config.yaml").write_text("plugins:\n  enabled: []\n")
    manager.discover_and_load(force=True)
    plugin = _ours(manager)
    assert plugin["source"] == "entrypoint"
    assert plugin["enabled"] is False and "not enabled" in plugin["error"]
    assert plugin["tools"] == 0 and plugin["commands"] == 0


def test_enabled_entry_point_registers_tools_command_and_cli(manager) -> None:
    from hermes_cli.plugins import get_plugin_toolsets
    from tools.registry import registry

    manager.discover_and_load(force=True)

    plugin = _ours(manager)
    assert (plugin["source"], plugin["enabled"], plugin["error"]) == ("entrypoint", True, None)
    loaded = manager._plugins["visual-workflow"]
    assert sorted(loaded.tools_registered) == sorted(TOOL_NAMES)
    assert loaded.commands_registered == ["workflow"]
    assert "workflow" in manager._cli_commands
    assert {name: registry.get_toolset_for_tool(name) for name in TOOL_NAMES} == {
        name: AGENT_STEPS_TOOLSET if name in AGENT_STEPS_TOOLS else TOOLSET
        for name in TOOL_NAMES}
    assert {TOOLSET, AGENT_STEPS_TOOLSET} <= {key for key, _label, _desc in get_plugin_toolsets()}
    definitions = registry.get_definitions(set(TOOL_NAMES), quiet=True)
    assert sorted(d["function"]["name"] for d in definitions) == sorted(TOOL_NAMES)
    for definition in definitions:  # schemas a chat model can fill
        parameters = definition["function"]["parameters"]
        assert parameters["type"] == "object" and definition["function"]["description"]
        assert set(parameters["required"]) <= set(parameters["properties"])


DIRECTORY_FORM_PROBE = textwrap.dedent("""
    import json, sys
    # A Hermes without hwf-lsp in its environment: no entry point, no importable hwf_lsp.
    sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f)]
    assert "hwf_lsp" not in sys.modules
    from hermes_cli.plugins import PluginManager, get_plugin_manager
    PluginManager._scan_entry_points = lambda self: []
    manager = get_plugin_manager()
    manager.discover_and_load(force=True)
    (plugin,) = [p for p in manager.list_plugins() if p["key"] == "visual-workflow"]
    from tools.registry import registry
    answer = json.loads(registry.dispatch("workflow_design_validate",
                                          {"design": {"name": "x", "nodes": []}}))
    print(json.dumps({"plugin": plugin, "hwf_lsp": sys.modules["hwf_lsp"].__file__,
                      "answer": answer}))
""")


def test_hwf_hermes_install_writes_the_directory_form_hermes_loads(hermes_home: Path,
                                                                    tmp_path: Path) -> None:
    home = tmp_path / "fresh-home"
    done = subprocess.run([HWF, "hermes", "install", "--home", str(home), "--no-dashboard"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert (home / "plugins" / "visual-workflow" / "plugin.yaml").is_file()
    probe = subprocess.run([sys.executable, "-c", DIRECTORY_FORM_PROBE], capture_output=True,
                           text=True, timeout=120, env=hermes_env(home), cwd=tmp_path)
    assert probe.returncode == 0, probe.stderr
    seen = json.loads(probe.stdout.strip().splitlines()[-1])
    assert (seen["plugin"]["source"], seen["plugin"]["enabled"]) == ("user", True)
    assert seen["plugin"]["tools"] == len(TOOL_NAMES) and seen["plugin"]["version"] == "0.1.0"
    import hwf_lsp

    assert Path(seen["hwf_lsp"]) == Path(hwf_lsp.__file__).resolve()  # loaded by path
    assert seen["answer"]["valid"] is False


def test_install_enables_it_the_way_hermes_reads_it(hermes_home: Path) -> None:
    (hermes_home / "config.yaml").write_text(
        "model:\n  default: m\nplugins:\n  enabled: [other]\n  disabled: [visual-workflow]\n")
    done = subprocess.run([HWF, "hermes", "install", "--no-dashboard"], capture_output=True,
                          text=True, timeout=60, env=hermes_env(hermes_home))
    assert done.returncode == 0, done.stderr
    listed = subprocess.run([HERMES, "plugins", "list"], capture_output=True, text=True,
                            timeout=120, env=hermes_env(hermes_home))
    assert listed.returncode == 0, listed.stderr
    line = next(line for line in listed.stdout.splitlines() if "visual-workflow" in line)
    assert "enabled" in line and "disabled" not in line, listed.stdout
    from hermes_cli.plugins import _get_disabled_plugins, _get_enabled_plugins

    assert _get_enabled_plugins() == {"other", "visual-workflow"}
    assert "visual-workflow" not in _get_disabled_plugins()


def test_install_refuses_a_config_it_cannot_edit_and_writes_nothing(hermes_home: Path) -> None:
    (hermes_home / "config.yaml").write_text("plugins: [not, a, mapping]\n")
    done = subprocess.run([HWF, "hermes", "install", "--no-dashboard"], capture_output=True,
                          text=True, timeout=60, env=hermes_env(hermes_home))
    assert done.returncode == 2
    assert "plugins: {enabled: [visual-workflow]}" in done.stderr
    assert (hermes_home / "config.yaml").read_text() == "plugins: [not, a, mapping]\n"


def test_install_refuses_a_tab_whose_script_is_missing(tmp_path: Path) -> None:
    source = stub_dashboard_source(tmp_path / "built", built=False)
    home = tmp_path / "home"
    with pytest.raises(MissingBundle, match="dist/canvas-dashboard.js, dist/canvas-dashboard"
                       ".css in .* are not built: run `make dashboard-js`"):
        write_plugin_dir(home, "0.1.0", TOOL_NAMES, source=source)
    assert not home.exists()  # nothing written
    if missing_bundle_files(dashboard_source()):  # this checkout has not built the tab
        done = subprocess.run([HWF, "hermes", "install", "--home", str(home)],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and "make dashboard-js" in done.stderr, done.stderr
        assert not home.exists()


def test_install_copies_a_built_tab_and_no_dashboard_removes_a_stale_one(
        tmp_path: Path) -> None:
    source = stub_dashboard_source(tmp_path / "built")
    home = tmp_path / "home"
    tab = write_plugin_dir(home, "0.1.0", TOOL_NAMES, source=source) / "dashboard"
    assert sorted(str(p.relative_to(tab)) for p in tab.rglob("*") if p.is_file()) == [
        "dist/canvas-dashboard.css", "dist/canvas-dashboard.js", "manifest.json",
        "plugin_api.py"]
    write_plugin_dir(home, "0.1.0", TOOL_NAMES, with_dashboard=False)
    assert not tab.exists() and (tab.parent / "plugin.yaml").is_file()
