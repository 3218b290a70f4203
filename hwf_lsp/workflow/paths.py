"""Where the engine's files go: the Hermes home, and a child path that provably stays
inside its root.  Both touch the machine (the environment, the file system's symlinks),
so they live in the engine, not beside the name checks of `rules/names.py`."""

from __future__ import annotations

import os
from pathlib import Path

from hwf_lsp.rules.names import describe_value


def hermes_home(env: dict[str, str] | None = None) -> Path:
    """$HERMES_HOME, else ~/.hermes: the directory every Hermes surface shares."""
    env = os.environ if env is None else env
    value = env.get("HERMES_HOME")
    if value:
        return Path(value).expanduser()
    return Path.home() / ".hermes"


def safe_child(root: Path, filename: str) -> Path:
    """root/filename, refusing anything that would not land directly inside root."""
    if not filename or "\x00" in filename or "/" in filename or "\\" in filename:
        raise ValueError(f"invalid file name {describe_value(filename)}")
    path = root / filename
    if path.resolve().parent != root.resolve():
        raise ValueError(f"invalid file name {describe_value(filename)}: escapes {root}")
    return path
