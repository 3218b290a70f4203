"""Values that enter a run state: strict JSON, valid Unicode, bounded in size.

Run files are read by JavaScript too (the Hermes dashboard, the canvas), so they must
be strict JSON in valid UTF-8, whoever supplied a value:

- `NaN`, `Infinity` and numbers like `1e999` (Python reads them as floats) are refused
  where they come in (an agent's answer, `hwf respond --structured`, `hwf.respondAgent`)
  with a clear error; every write also passes `allow_nan=False`.
- A lone surrogate (a truncated emoji, `"\\ud83d"`: valid JSON, not valid UTF-8) is
  replaced by U+FFFD, and the run log says how many were.
- A stored output is at most `output_limit()` bytes of JSON (default 1 MiB,
  $HWF_MAX_OUTPUT_BYTES): past that it is kept as text, cut, with a marker saying so.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024
"""1 MiB: ~250 pages of text, more than any model answers in one go; an output step
stores its parents' outputs again, and a parked step's context holds them too."""
MAX_OUTPUT_ENV = "HWF_MAX_OUTPUT_BYTES"
MIN_OUTPUT_BYTES = 1024
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


def output_limit(env: Mapping[str, str] | None = None) -> int:
    """$HWF_MAX_OUTPUT_BYTES (at least MIN_OUTPUT_BYTES), else the default."""
    raw = (os.environ if env is None else env).get(MAX_OUTPUT_ENV, "")
    try:
        return max(MIN_OUTPUT_BYTES, int(raw)) if raw.strip() else DEFAULT_MAX_OUTPUT_BYTES
    except ValueError:
        return DEFAULT_MAX_OUTPUT_BYTES


@dataclass(frozen=True, slots=True)
class Admitted:
    value: Any
    surrogates: int = 0
    """Lone surrogates replaced by U+FFFD."""
    cut_from: int | None = None
    """The value's size in bytes when it was cut to the limit, else None."""

    def notes(self, what: str) -> list[tuple[str, str]]:
        """(log event, detail) for each change made, for the run log."""
        notes = []
        if self.surrogates:
            notes.append(("output-repaired", f"{what} held {self.surrogates} lone surrogate"
                          f"{'s' if self.surrogates != 1 else ''} (a cut character, not valid "
                          "Unicode), replaced with U+FFFD"))
        if self.cut_from is not None:
            notes.append(("output-cut", f"{what} was {self.cut_from:,} bytes, cut to the "
                          f"limit ({MAX_OUTPUT_ENV})"))
        return notes


def cut_marker(size: int, limit: int) -> str:
    return f"\n[… cut by hwf: {size:,} bytes, over the {limit:,}-byte limit ({MAX_OUTPUT_ENV})]"


def admit(value: Any, limit: int | None = None, *, known_size: int | None = None) -> Admitted:
    """`value` as a run state may hold it: NotStrictJson for NaN/Infinity or a non-JSON
    value; lone surrogates replaced; cut to `limit` bytes of JSON (then a string: the
    head of its text and `cut_marker`).  `known_size`: the value is already a cut head
    of something that big (the seam stopped reading)."""
    text = strict_dumps(value, ensure_ascii=False)
    refuse_deep(value, text)
    surrogates = len(LONE_SURROGATE.findall(text))
    if surrogates:
        text = LONE_SURROGATE.sub("\ufffd", text)
        value = json.loads(text)
    if limit is None:
        return Admitted(value, surrogates)
    size = len(text) if len(text) * 4 <= limit else len(text.encode("utf-8"))
    size = max(size, known_size or 0)
    if size <= limit:
        return Admitted(value, surrogates)
    whole = value if isinstance(value, str) else text
    marker = cut_marker(size, limit)
    room = max(0, limit - len(marker.encode("utf-8")))
    head = whole.encode("utf-8")[:room].decode("utf-8", errors="ignore")
    return Admitted(head + marker, surrogates, size)
