"""Strict JSON: what a run file may hold, checked without touching anything.

Run files are read by JavaScript too, so NaN, Infinity and numbers that overflow to them
are refused, and so are values nested deeper than any reader of a run state can walk.
Pure (the engine's `workflow/json_values.py` admits values into a run with these checks;
a design test's expected output is checked with them too).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # in a str, any surrogate is a lone one
NON_FINITE = "NaN and Infinity are not JSON numbers (JSON readers such as JavaScript reject them)"


class NotStrictJson(ValueError):
    """A value JSON cannot hold: NaN, Infinity, a number out of range, a non-JSON type."""


def _refuse_constant(name: str) -> Any:
    raise NotStrictJson(f"{name} is not allowed: {NON_FINITE}")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise NotStrictJson(f"{text} is out of range for a JSON number: {NON_FINITE}")
    return value


def strict_loads(text: str) -> Any:
    """json.loads, refusing NaN, Infinity and numbers that overflow to them."""
    return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)


def strict_dumps(value: Any, **options: Any) -> str:
    """json.dumps with allow_nan=False; NotStrictJson saying why instead of ValueError."""
    try:
        return json.dumps(value, allow_nan=False, **options)
    except ValueError as exc:  # "Out of range float values are not JSON compliant"
        raise NotStrictJson(f"holds a number JSON cannot hold: {NON_FINITE}") from exc
    except TypeError as exc:
        raise NotStrictJson(f"is not a JSON value: {exc}") from exc
    except RecursionError:
        raise NotStrictJson("is nested too deeply to store") from None


MAX_DEPTH = 512
"""How deeply a value entering a run may nest (the editor's parser reads as deep): a run
state nests it deeper still (an output step holds its parents' outputs), and every
reader and writer of the state must stay far from Python's recursion limit."""


def refuse_deep(value: Any, text: str) -> None:
    """NotStrictJson when `value` (whose JSON is `text`) nests deeper than MAX_DEPTH.
    Counting brackets in the text (C speed) rules out almost every value before a walk."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise NotStrictJson(f"is nested too deeply to store (over {MAX_DEPTH} levels)")
        if isinstance(item, dict):
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
