"""The model-override trust gate: one key in the Hermes config, read the same way everywhere.

`plugins.entries.visual-workflow.llm.allow_model_override` in `$HERMES_HOME/config.yaml`
decides whether an agent node's `model` reaches whoever performs the step: the
Hermes host reads that key for the plugin's `ctx.llm`, and `hwf`, the language
server and the plugin's other seams read it here, so they all agree. Editor
settings and CLI flags can only narrow the gate, never open it.

The file is only read (PyYAML `safe_load`), never written: Hermes' own
`load_config()` creates files in the home, which a reader outside Hermes must
not do. Anything but a literal `true` keeps the gate closed. Hermes treats any
truthy value as true, so a stricter reading can only drop a model, never send one
that Hermes would refuse. `llm.allowed_models` is honoured as Hermes does it: a list
limits the models, `"*"` allows any.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

PLUGIN_NAME = "visual-workflow"
"""The plugin's entry-point name, and so its key under `plugins.entries`."""
GATE_KEY = f"plugins.entries.{PLUGIN_NAME}.llm.allow_model_override"
ALLOWLIST_KEY = f"plugins.entries.{PLUGIN_NAME}.llm.allowed_models"
CONFIG_FILENAME = "config.yaml"
MAX_CONFIG_BYTES = 1 << 20
"""A config bigger than this is not read (the gate stays closed)."""


@dataclass(frozen=True, slots=True)
class ModelGate:
    """Whether an agent node's `model` may be passed on, and why (for hover and messages)."""

    open: bool
    config_path: Path
    reason: str
    """Why the gate is open or closed, e.g. "true in /h/config.yaml"."""
    allowed_models: frozenset[str] | None = None
    """`llm.allowed_models` lower-cased; None: any model (no list, or `"*"`)."""
    narrowed_by: str | None = None
    """The setting or flag that closed a gate the config opens."""

    def permits(self, model: str) -> bool:
        """Whether `model` may be sent (the Runner's `allow_model_override`)."""
        if not self.open:
            return False
        return self.allowed_models is None or model.strip().lower() in self.allowed_models

    def narrowed(self, allowed: bool, by: str) -> ModelGate:
        """This gate, closed when a user setting or flag says no; it never opens one."""
        if allowed or not self.open:
            return self
        return replace(self, open=False, narrowed_by=by)

    def detail(self) -> str:
        """Where the gate is decided, e.g. "GATE_KEY is true in /h/config.yaml"."""
        if self.narrowed_by:
            return f"by {self.narrowed_by}; the Hermes config opens it ({GATE_KEY} is {self.reason})"
        text = f"{GATE_KEY} is {self.reason}"
        if self.open and self.allowed_models is not None:
            listed = ", ".join(sorted(self.allowed_models)) or "none"
            text += f"; only these models: {listed} ({ALLOWLIST_KEY})"
        return text

    def describe(self) -> str:
        """One line: open or closed, and where that is decided."""
        return f"{'open' if self.open else 'closed'}: {self.detail()}"


def config_path(home: Path | str) -> Path:
    return Path(home) / CONFIG_FILENAME


def _dig(config: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(config, dict):
            return None
        config = config.get(key)
    return config


def _allowlist(raw: Any) -> frozenset[str] | None:
    """Hermes' `_coerce_allowlist`: a list limits (empty: nothing), `"*"` or no list: any."""
    if not isinstance(raw, list):
        return None
    names = {item.strip().lower() for item in raw if isinstance(item, str)}
    if "*" in names:
        return None
    return frozenset(name for name in names if name)


def gate_from_config(config: Any, path: Path) -> ModelGate:
    """The gate a parsed config (any YAML value) describes."""
    llm = _dig(config, "plugins", "entries", PLUGIN_NAME, "llm")
    value = llm.get("allow_model_override") if isinstance(llm, dict) else None
    if value is True:
        return ModelGate(True, path, f"true in {path}", _allowlist(llm.get("allowed_models")))
    if value is None:
        return ModelGate(False, path, f"not set in {path} (default false)")
    return ModelGate(False, path, f"{value!r} in {path} (only true opens it)")


def _load_yaml(text: str) -> Any:
    import yaml  # PyYAML: imported only when a config file is actually read

    return yaml.safe_load(text)


def read_model_gate(home: Path | str) -> ModelGate:
    """The gate as `$HERMES_HOME/config.yaml` (here: `home`) sets it; closed on any doubt."""
    path = config_path(home)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return ModelGate(False, path, f"not set ({path} does not exist; default false)")
    except OSError as exc:
        return ModelGate(False, path, f"unreadable ({path}: {exc.strerror or exc})")
    if not stat.S_ISREG(info.st_mode):
        return ModelGate(False, path, f"unreadable ({path} is not a regular file)")
    if info.st_size > MAX_CONFIG_BYTES:
        return ModelGate(False, path, f"unreadable ({path} is larger than {MAX_CONFIG_BYTES} bytes)")
    try:
        text = path.read_text(encoding="utf-8-sig")
        config = _load_yaml(text)
    except Exception as exc:  # noqa: BLE001 - unreadable or invalid YAML: the gate stays closed
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        gate = ModelGate(False, path, f"unreadable ({path}: {first})")
    else:
        return gate_from_config(config, path)
    return gate
