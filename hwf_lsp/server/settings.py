"""The user's settings, typed, from whatever shape the client sends.

Clients send settings as initializationOptions `{"settings": {...}}` or answer
workspace/configuration for section `hwf`.  Either may be nested
(`{"hwf": {"designs": {"globs": [...]}}}`), flat (`{"hwf.designs.globs": [...]}`)
or already scoped to the section (`{"designs": {"globs": [...]}}`).  Junk values
fall back to the defaults instead of failing: a bad setting must not take the
server down.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from hwf_lsp.rules.model_gate import ModelGate
from hwf_lsp.workflow.paths import hermes_home
from hwf_lsp.workflow.trust import read_model_gate

DEFAULT_DESIGN_GLOBS: tuple[str, ...] = ("**/workflow-designs/*.json", "**/*.hwf.json")
SECTION = "hwf"
MODEL_OVERRIDE_SETTING = "the editor setting hwf.agent.allowModelOverride: false"

_KEYS = {
    "agent.command": "agent_command",
    "agent.allowModelOverride": "allow_model_override",
    "delivery.command": "delivery_command",
    "hermesHome": "hermes_home",
    "designs.globs": "design_globs",
    "runsEnabled": "runs_enabled",
}


@dataclass(frozen=True, slots=True)
class Settings:
    agent_command: tuple[str, ...] | None = None
    allow_model_override: bool = True
    """False narrows the trust gate (never passes a node's `model`); it can never open the
    gate, which is `plugins.entries.visual-workflow.llm.allow_model_override` in the Hermes
    home's config.yaml (workflow/trust.py)."""
    delivery_command: tuple[str, ...] | None = None
    hermes_home: str | None = None
    design_globs: tuple[str, ...] = field(default=DEFAULT_DESIGN_GLOBS)
    runs_enabled: bool = True
    """False in an untrusted workspace (the VS Code extension sends it): no run starts."""

    def home(self) -> Path:
        """The Hermes home the settings name, else $HERMES_HOME, else ~/.hermes (read on
        every call: a changed environment is seen; it costs microseconds)."""
        if self.hermes_home:
            return Path(self.hermes_home).expanduser()
        return hermes_home()

    def model_gate(self) -> ModelGate:
        """The Hermes config's trust gate for this home, narrowed (never opened) by the setting."""
        return read_model_gate(self.home()).narrowed(self.allow_model_override,
                                                     MODEL_OVERRIDE_SETTING)

    def merged(self, raw: Any) -> Settings:
        """These settings overridden by every well-typed value found in `raw`."""
        flat = _flatten(raw)
        changes: dict[str, Any] = {}
        for key, attr in _KEYS.items():
            if key not in flat:
                continue
            value = _coerce(attr, flat[key])
            if value is not _INVALID:
                changes[attr] = value
        return replace(self, **changes) if changes else self


_INVALID = object()


def _coerce(attr: str, value: Any) -> Any:
    if attr in ("agent_command", "delivery_command"):
        if value is None or value == []:
            return None
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return tuple(value)
        return _INVALID
    if attr in ("allow_model_override", "runs_enabled"):
        return value if isinstance(value, bool) else _INVALID
    if attr == "hermes_home":
        if value is None or value == "":
            return None
        return value if isinstance(value, str) else _INVALID
    if attr == "design_globs":
        if isinstance(value, list) and value and all(isinstance(v, str) and v for v in value):
            return tuple(value)
        return _INVALID
    return _INVALID


def _flatten(raw: Any) -> dict[str, Any]:
    """Dotted keys relative to the `hwf` section, from nested or flat dicts (iterative)."""
    if not isinstance(raw, dict):
        return {}
    if isinstance(raw.get("settings"), dict):
        raw = raw["settings"]
    out: dict[str, Any] = {}
    stack: list[tuple[str, Any, int]] = [("", raw, 0)]
    while stack:
        prefix, value, depth = stack.pop()
        if isinstance(value, dict) and depth < 6:
            for key, child in value.items():
                if isinstance(key, str):
                    stack.append((f"{prefix}.{key}" if prefix else key, child, depth + 1))
            continue
        key = prefix.removeprefix(SECTION + ".") if prefix.startswith(SECTION + ".") else prefix
        out.setdefault(key, value)
    return out
