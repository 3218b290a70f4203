"""What a checker must say about a corpus text, decided without the code under test.

The oracle is Python's own JSON parser plus the rulebook: a text that
`json.loads` refuses, or whose value breaks a rule, needs at least one error.
(The checker may be stricter than `json.loads` — NaN, duplicate keys — but
never more lenient.)  Ranges are checked against the text's own lines, counted
as LSP counts them.
"""

from __future__ import annotations

import json
from typing import Any

from hwf_lsp.workflow import validate_designer_graph


def needs_an_error(text: str) -> bool:
    """One leading BOM is allowed (editors and the stores drop it)."""
    try:
        value = json.loads(text.removeprefix("\ufeff"))
    except (ValueError, RecursionError):
        return True
    return bool(validate_designer_graph(value))


def lsp_lines(text: str) -> list[str]:
    """Lines split on \\r\\n, \\n and lone \\r only (LSP's line breaks, not U+2028)."""
    lines: list[str] = []
    start = i = 0
    while i < len(text):
        char = text[i]
        if char == "\r" or char == "\n":
            lines.append(text[start:i])
            i += 2 if char == "\r" and text[i + 1:i + 2] == "\n" else 1
            start = i
        else:
            i += 1
    lines.append(text[start:])
    return lines


def utf16_length(line: str) -> int:
    return len(line.encode("utf-16-le", "surrogatepass")) // 2


def range_problems(text_lines: list[str], rng: dict[str, Any]) -> list[str]:
    """Why an LSP range (dict form) does not fit the text, if it does not."""
    problems = []
    points = []
    for end in ("start", "end"):
        point = rng.get(end) or {}
        line, character = point.get("line"), point.get("character")
        if not (isinstance(line, int) and isinstance(character, int)):
            problems.append(f"{end} is not two integers: {point}")
            continue
        if not 0 <= line < len(text_lines):
            problems.append(f"{end} line {line} outside 0..{len(text_lines) - 1}")
        elif not 0 <= character <= utf16_length(text_lines[line]):
            problems.append(f"{end} character {character} past the end of line {line}")
        points.append((line, character))
    if len(points) == 2 and points[0] > points[1]:
        problems.append(f"start {points[0]} after end {points[1]}")
    return problems
