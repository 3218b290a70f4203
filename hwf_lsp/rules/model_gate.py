"""The model-override trust gate as a value: whether an agent node's `model` is passed on.

`plugins.entries.visual-workflow.llm.allow_model_override` in `$HERMES_HOME/config.yaml`
decides it, read as Hermes reads it (a literal `true` only: stricter can only drop a
model); `llm.allowed_models` limits the models (`"*"`: any).  Reading the file is the
engine's (`workflow/trust.py`); settings and flags only narrow the gate, never open it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # a value of the gate names its file; the gate never opens it
    from pathlib import Path

PLUGIN_NAME = "visual-workflow"
"""The plugin's entry-point name, and so its key under `plugins.entries`."""
GATE_KEY = f"plugins.entries.{PLUGIN_NAME}.llm.allow_model_override"
ALLOWLIST_KEY = f"plugins.entries.{PLUGIN_NAME}.llm.allowed_models"


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
