"""Design names and run ids become file names, so they are checked before any path is built.

Anything outside the spec's patterns would be a path-traversal bug; the final
`safe_child` check proves the resulting path stays directly inside its root.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from hwf_lsp.workflow.vocabulary import DESIGN_NAME_PATTERN, RUN_ID_PATTERN

# fullmatch: `$` in the vocabulary pattern would also match before a trailing newline.
_DESIGN_NAME_RE = re.compile(DESIGN_NAME_PATTERN.removeprefix("^").removesuffix("$"))
_RUN_ID_RE = re.compile(RUN_ID_PATTERN.removeprefix("^").removesuffix("$"))
legal_run_file = re.compile(rf"(?:{_RUN_ID_RE.pattern})\.json").fullmatch
"""A match when a file name is `<legal run id>.json` (a cold listing asks 100,000 times)."""

_RESERVED = frozenset(
    {"con", "prn", "aux", "nul", ".", ".."}
    | {f"com{i}" for i in range(1, 10)}
    | {f"lpt{i}" for i in range(1, 10)}
)
"""Names Windows refuses as file names (with any extension), plus the dot entries."""


def hermes_home(env: dict[str, str] | None = None) -> Path:
    """$HERMES_HOME, else ~/.hermes: the directory every Hermes surface shares."""
    env = os.environ if env is None else env
    value = env.get("HERMES_HOME")
    if value:
        return Path(value).expanduser()
    return Path.home() / ".hermes"


def _describe(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def check_design_name(name: object) -> str:
    """Return `name` if it is a legal design name, else raise ValueError saying why."""
    if not isinstance(name, str):
        raise ValueError(f"design name must be a string, not {type(name).__name__}")
    if not _DESIGN_NAME_RE.fullmatch(name):
        raise ValueError(
            f"invalid design name {_describe(name)}: must match {DESIGN_NAME_PATTERN} "
            "(lowercase letters, digits, '_', '.', '-'; at most 64 characters; "
            "starting with a letter or digit)"
        )
    stem = name.split(".", 1)[0]
    if name in _RESERVED or stem in _RESERVED:
        raise ValueError(f"invalid design name {_describe(name)}: reserved file name")
    return name


def check_run_id(run_id: object) -> str:
    """Return `run_id` if it is a legal run id, else raise ValueError saying why."""
    if not isinstance(run_id, str):
        raise ValueError(f"run id must be a string, not {type(run_id).__name__}")
    if not _RUN_ID_RE.fullmatch(run_id):
        raise ValueError(
            f"invalid run id {_describe(run_id)}: must match {RUN_ID_PATTERN} "
            "(6-32 lowercase hex digits)"
        )
    return run_id


def safe_child(root: Path, filename: str) -> Path:
    """root/filename, refusing anything that would not land directly inside root."""
    if not filename or "\x00" in filename or "/" in filename or "\\" in filename:
        raise ValueError(f"invalid file name {_describe(filename)}")
    path = root / filename
    if path.resolve().parent != root.resolve():
        raise ValueError(f"invalid file name {_describe(filename)}: escapes {root}")
    return path
