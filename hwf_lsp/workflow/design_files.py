"""A design read from a file, and the one rule for the name its runs are filed under.

The CLI (`hwf run PATH`), the editor's `hwf.startRun` and the editor's newest-run
lookup all need "which design name does this file mean". One rule, here, so a run
started from a file is found again by the editor that shows that file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hwf_lsp.rules.names import legal_design_name
from hwf_lsp.workflow.stores import read_text_file

DESIGN_SUFFIXES = (".hwf.json", ".json")


class DesignFileError(ValueError):
    """The file is not a design: its message follows the file's path ("… is not valid JSON")."""


def file_stem(path: str | Path) -> str:
    """The file's name without `.hwf.json` / `.json` (`review-flow.hwf.json` -> `review-flow`)."""
    base = str(path).replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    for suffix in DESIGN_SUFFIXES:
        if base.endswith(suffix):
            return base[: -len(suffix)]
    return base


def design_name_for(design: Any, path: str | Path | None) -> str | None:
    """The name a design's runs are filed under: its own non-empty `name`, else the file's
    stem made legal; None when there is neither."""
    if isinstance(design, dict) and isinstance(design.get("name"), str) and design["name"]:
        return design["name"]
    if not path:
        return None
    return legal_design_name(file_stem(path))


def design_from_text(text: str, path: str | Path) -> tuple[dict[str, Any], str]:
    """(design, run name) from a design file's text; DesignFileError if it is no JSON object."""
    try:
        design = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DesignFileError(f"is not valid JSON ({exc.msg} at line {exc.lineno}, column "
                              f"{exc.colno})") from None
    except (ValueError, RecursionError) as exc:
        raise DesignFileError(f"is not valid JSON ({exc})") from None
    if not isinstance(design, dict):
        raise DesignFileError("is not a design: expected a JSON object with name and nodes")
    return design, design_name_for(design, path) or "design"


def load_design_file(path: str | Path) -> tuple[dict[str, Any], str]:
    """(design, run name) of a design file. Missing -> FileNotFoundError; a directory, an
    unreadable file or one that is not a JSON object -> ValueError saying why."""
    if Path(path).is_dir():
        raise DesignFileError("is a directory, not a design file")
    return design_from_text(read_text_file(path), path)
