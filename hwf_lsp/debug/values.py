"""Reading values of a run the way conditions name them: `out.<node>` or
`out.<node>.<path>` (the condition grammar's names), for the console and logpoints."""

from __future__ import annotations

import json
import re
from typing import Any

from hwf_lsp.rules.conditions import INDEX_SEGMENT_RE, NAME_PATTERN, PREFIX, resolve_path
from hwf_lsp.rules.strict_json import strict_loads

REFERENCE_RE = re.compile(rf"out\.{NAME_PATTERN}(?:\.{NAME_PATTERN})*")
"""`out.node` or `out.node.key.0`: a whole output or a part of it."""
LOG_FIELD_RE = re.compile(r"\{\s*(" + REFERENCE_RE.pattern + r")\s*\}")


def parse_reference(text: str) -> tuple[str, tuple[str | int, ...]] | None:
    """(node, path) of `out.node[.path]`, segments of digits as list indexes; else None."""
    text = text.strip()
    if not REFERENCE_RE.fullmatch(text):
        return None
    node, *path = text[len(PREFIX):].split(".")
    return node, tuple(int(s) if INDEX_SEGMENT_RE.fullmatch(s) else s for s in path)


def lookup(outputs: dict[str, Any], node: str, path: tuple[str | int, ...]) -> tuple[bool, Any]:
    """(found, value) of `out.node.path` in a run's outputs; never raises."""
    if node not in outputs:
        return False, None
    return resolve_path(outputs[node], path)


def shown(value: Any, limit: int = 2000) -> str:
    """A value as one line of text: a string as itself, anything else as compact JSON."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False,
                                                           default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def interpolate(message: str, outputs: dict[str, Any]) -> str:
    """A logpoint's message with each `{out.node.path}` replaced by its value (a missing
    one reads `<no value>`); other text is kept as written."""
    def value_of(match: re.Match[str]) -> str:
        reference = parse_reference(match.group(1))
        found, value = lookup(outputs, *reference) if reference else (False, None)
        return shown(value) if found else "<no value>"

    return LOG_FIELD_RE.sub(value_of, message)


def parse_given(text: str) -> Any:
    """A value typed by the user: strict JSON text, else the text itself as a string."""
    try:
        return strict_loads(text)
    except (ValueError, RecursionError):
        return text
