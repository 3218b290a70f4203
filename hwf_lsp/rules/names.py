"""Design names and run ids become file names, so they are checked before any path is built.

Anything outside the spec's patterns would be a path-traversal bug (the engine's
`workflow/paths.py` then proves the path it builds stays directly inside its root).
Pure: a string in, the string or a ValueError out.
"""

from __future__ import annotations

import re

from hwf_lsp.rules.vocabulary import DESIGN_NAME_PATTERN, RUN_ID_PATTERN

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


def describe_value(value: object) -> str:
    """A value as an error message shows it: its repr, cut at 80 characters."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def check_design_name(name: object) -> str:
    """Return `name` if it is a legal design name, else raise ValueError saying why."""
    if not isinstance(name, str):
        raise ValueError(f"design name must be a string, not {type(name).__name__}")
    if not _DESIGN_NAME_RE.fullmatch(name):
        raise ValueError(
            f"invalid design name {describe_value(name)}: must match {DESIGN_NAME_PATTERN} "
            "(lowercase letters, digits, '_', '.', '-'; at most 64 characters; "
            "starting with a letter or digit)"
        )
    stem = name.split(".", 1)[0]
    if name in _RESERVED or stem in _RESERVED:
        raise ValueError(f"invalid design name {describe_value(name)}: reserved file name")
    return name


def check_run_id(run_id: object) -> str:
    """Return `run_id` if it is a legal run id, else raise ValueError saying why."""
    if not isinstance(run_id, str):
        raise ValueError(f"run id must be a string, not {type(run_id).__name__}")
    if not _RUN_ID_RE.fullmatch(run_id):
        raise ValueError(
            f"invalid run id {describe_value(run_id)}: must match {RUN_ID_PATTERN} "
            "(6-32 lowercase hex digits)"
        )
    return run_id


def legal_design_name(stem: str) -> str:
    """A file stem as a legal design name: lower case, any other character as '-'."""
    name = re.sub(r"[^a-z0-9_.-]+", "-", stem.lower()).lstrip("_.-")[:64]
    return name or "design"
