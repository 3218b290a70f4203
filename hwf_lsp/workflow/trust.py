"""The model-override trust gate read from `$HERMES_HOME/config.yaml`, the same way for
the plugin's seams, `hwf` and the language server (the gate as a value and how a config
decides it: `rules/model_gate.py`).  The file is only read (PyYAML `safe_load`), never
written: Hermes' own `load_config()` creates files in the home, which a reader outside
Hermes must not do.  Unreadable, too big or not YAML: the gate stays closed.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from hwf_lsp.rules.model_gate import ModelGate, gate_from_config

CONFIG_FILENAME = "config.yaml"
MAX_CONFIG_BYTES = 1 << 20
"""A config bigger than this is not read (the gate stays closed)."""


def config_path(home: Path | str) -> Path:
    return Path(home) / CONFIG_FILENAME


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
