"""How a tool answer is written, so the host reads success and failure right.

Hermes 0.19.0 judges every tool result with `agent/display.py` `_detect_tool_failure`:
a parsed top-level `error` (or `message`) that is set means failure, and so does the
text `"error"` or `"failed"` anywhere in the first 500 characters.  That second test
reads raw text, not JSON: a run summary's `"error": null`, a listed run whose status is
`"failed"`, or a step output that is the word "error" would show a successful call as
`[error]`, log it to errors.log and count it toward the host's repeated-failure warning.

So an answer whose top-level `error` is unset (a success) is written with every JSON
string that is exactly `error` or `failed` (any case) spelt with its first letter as a
JSON escape (`"\\u0065rror"`, `"\\u0066ailed"`).  Every JSON reader gets the same keys
and values (contract 6 is unchanged); only a substring search no longer sees the word.
An error (`{"error": msg, ...}`) is written plainly, and the host flags it, as it should.
"""

from __future__ import annotations

import json
import re
from typing import Any

_FAILURE_WORDS = re.compile(r'"(error|failed)"', re.IGNORECASE)


def _escaped(match: re.Match[str]) -> str:
    word = match.group(1)
    return f'"\\u{ord(word[0]):04x}{word[1:]}"'


def is_error(value: Any) -> bool:
    """An answer the host should read as the call failing: a set top-level `error`."""
    return isinstance(value, dict) and bool(value.get("error"))


def answer_json(value: dict[str, Any]) -> str:
    """`value` as the JSON string a tool returns (see the module docstring)."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        return json.dumps({"error": f"result is not JSON: {exc}"})
    return text if is_error(value) else _FAILURE_WORDS.sub(_escaped, text)
