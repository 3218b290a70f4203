"""`hwf hermes install`: the plugin's directory form, and its line in `plugins.enabled`.

The documented install (hwf-lsp is not on PyPI; docs/hermes.md), and the only form in
which Hermes finds a dashboard tab: `$HERMES_HOME/plugins/visual-workflow/` gets a `plugin.yaml` and an
`__init__.py` whose `register(ctx)` loads this very `hwf_lsp` package by path (no
change to `sys.path`, so none of Hermes' modules can be shadowed), and `dashboard/`,
the dashboard tab (Hermes finds a tab only in a plugin directory: its manifest, the
built bundle, and a `plugin_api.py` loading the routes the same way). Then
`plugins.enabled` in `config.yaml` names the plugin, as `hermes plugins enable`
would. The config is rewritten through PyYAML (as Hermes' own `save_config`
does, comments are not kept) and atomically; a config this cannot safely edit
is left untouched, with an error saying what to add by hand.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import hwf_lsp
from hwf_lsp.rules.model_gate import PLUGIN_NAME
from hwf_lsp.workflow.atomic import atomic_write_bytes
from hwf_lsp.workflow.trust import CONFIG_FILENAME

PLUGIN_YAML = """\
name: {name}
version: "{version}"
description: Hermes Workflow designs and runs (hwf-lsp) - validate, save, run, answer; the same runs hwf and the editor see
author: hwf-lsp
kind: standalone
provides_tools:
{tools}
"""

LOADER = '''\
import importlib.util
import sys
from pathlib import Path

HWF_LSP_PACKAGE = Path({package!r})


def _hwf_lsp():
    init = HWF_LSP_PACKAGE / "__init__.py"
    if "hwf_lsp" not in sys.modules and init.is_file():
        spec = importlib.util.spec_from_file_location(
            "hwf_lsp", init, submodule_search_locations=[str(HWF_LSP_PACKAGE)])
        module = importlib.util.module_from_spec(spec)
        sys.modules["hwf_lsp"] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop("hwf_lsp", None)
            raise
'''
"""Loads the hwf_lsp package from HWF_LSP_PACKAGE by path (sys.path is not changed), or
the hwf_lsp installed in Hermes' own environment when that directory is gone."""

INIT_PY = '''\
"""{name}, written by `hwf hermes install`: the Hermes Workflow plugin from hwf-lsp.

Hermes imports this file and calls register(ctx). Re-run `hwf hermes install` after
moving hwf-lsp.
"""

''' + LOADER + '''

def register(ctx):
    _hwf_lsp()
    import hwf_lsp.hermes

    hwf_lsp.hermes.register(ctx)
'''

DASHBOARD_API_PY = '''\
"""{name}'s dashboard routes, written by `hwf hermes install`.

Hermes' web server imports this file (the manifest's `api`) and mounts `router` under
/api/plugins/{name}/. Re-run `hwf hermes install` after moving hwf-lsp.
"""

''' + LOADER + '''

_hwf_lsp()
from hwf_lsp.hermes.plugin_api import router  # noqa: E402

__all__ = ["router"]
'''

DASHBOARD = "dashboard"
"""The tab: Hermes discovers `plugins/<name>/dashboard/manifest.json` (the directory
form only) and serves the files beside it."""


def plugin_dir(home: Path) -> Path:
    return Path(home) / "plugins" / PLUGIN_NAME


def package_dir() -> Path:
    """The directory of the running `hwf_lsp` package (what the directory form loads)."""
    return Path(hwf_lsp.__file__).resolve().parent


class MissingBundle(ValueError):
    """The tab's manifest names files that are not built: installing it would give a tab
    that shows "Could not load this plugin's script"."""


def dashboard_source() -> Path:
    """The package's tab: `manifest.json` and, once `make dashboard-js` built it, `dist/`."""
    return package_dir() / "hermes" / DASHBOARD


def missing_bundle_files(source: Path) -> list[str]:
    """The files the tab's manifest names (`entry`, `css`) that `source` lacks."""
    import json

    try:
        manifest = json.loads((source / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return [f"manifest.json ({exc})"]
    named = [manifest.get(key) for key in ("entry", "css")]
    return [name for name in named if isinstance(name, str) and not (source / name).is_file()]


def write_plugin_dir(home: Path, version: str, tool_names: tuple[str, ...], *,
                     with_dashboard: bool = True, source: Path | None = None) -> Path:
    """Write (or refresh) `plugins/visual-workflow/{plugin.yaml,__init__.py,dashboard/}`;
    its path. MissingBundle, with nothing written, when the tab's script is not built;
    without the tab, a `dashboard/` left by an earlier install is removed (it would point
    at a bundle that may be gone)."""
    target = plugin_dir(home)
    source = dashboard_source() if source is None else source
    if with_dashboard:
        missing = missing_bundle_files(source)
        if missing:
            raise MissingBundle(
                f"the dashboard tab's {', '.join(missing)} in {source} "
                f"{'is' if len(missing) == 1 else 'are'} not built: run `make dashboard-js` "
                "in the hwf-lsp checkout first (or install without the tab: --no-dashboard)")
    tools = "\n".join(f"  - {name}" for name in tool_names)
    atomic_write_bytes(target / "plugin.yaml", PLUGIN_YAML.format(
        name=PLUGIN_NAME, version=version, tools=tools).encode("utf-8"))
    atomic_write_bytes(target / "__init__.py", INIT_PY.format(
        name=PLUGIN_NAME, package=str(package_dir())).encode("utf-8"))
    if with_dashboard:
        write_dashboard(target / DASHBOARD, source)
    elif (target / DASHBOARD).is_dir() and not (target / DASHBOARD).is_symlink():
        import shutil

        shutil.rmtree(target / DASHBOARD)
    return target


def write_dashboard(target: Path, source: Path) -> None:
    """The tab: the manifest and built bundle (`dist/`) copied from `source`, and the
    `plugin_api.py` that loads the routes from this package."""
    for path in sorted(source.rglob("*")):
        if path.is_file() and path.suffix != ".py" and "__pycache__" not in path.parts:
            atomic_write_bytes(target / path.relative_to(source), path.read_bytes())
    atomic_write_bytes(target / "plugin_api.py", DASHBOARD_API_PY.format(
        name=PLUGIN_NAME, package=str(package_dir())).encode("utf-8"))


def _mapping(parent: dict[str, Any], key: str, where: str) -> dict[str, Any]:
    value = parent.get(key)
    if value is None:
        value = parent[key] = {}
    if not isinstance(value, dict):
        raise ValueError(f"{where} is not a mapping")
    return value


def _names(parent: dict[str, Any], key: str, where: str) -> list[Any]:
    value = parent.get(key)
    if value is None:
        value = parent[key] = []
    if not isinstance(value, list):
        raise ValueError(f"{where} is not a list")
    return value


def enable_in_config(home: Path) -> tuple[Path, bool]:
    """Add the plugin to `plugins.enabled` (and drop it from `plugins.disabled`).

    Returns (config path, whether the file changed). ValueError, with nothing
    written, when the config is not YAML or its `plugins` section has another shape.
    """
    import yaml

    path = Path(home) / CONFIG_FILENAME
    hint = f"add `plugins: {{enabled: [{PLUGIN_NAME}]}}` to {path} yourself"
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        text = ""
    try:
        config = yaml.safe_load(text) if text.strip() else {}
    except yaml.YAMLError as exc:
        raise ValueError(f"{path} is not valid YAML ({exc}); {hint}") from None
    if config is None:
        config = {}
    if not isinstance(config, dict):
        raise ValueError(f"{path} is not a YAML mapping; {hint}")
    try:
        plugins = _mapping(config, "plugins", "plugins")
        enabled = _names(plugins, "enabled", "plugins.enabled")
        disabled = plugins.get("disabled")
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}; {hint}") from None
    changed = PLUGIN_NAME not in enabled
    if changed:
        enabled.append(PLUGIN_NAME)
    if isinstance(disabled, list) and PLUGIN_NAME in disabled:
        plugins["disabled"] = [name for name in disabled if name != PLUGIN_NAME]
        changed = True
    if changed:
        dumped = yaml.safe_dump(config, sort_keys=False, allow_unicode=True)
        atomic_write_bytes(path, dumped.encode("utf-8"))
    return path, changed
