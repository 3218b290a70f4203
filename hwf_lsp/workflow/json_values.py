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
import os
from dataclasses import dataclass
from typing import Any

from hwf_lsp.rules.strict_json import LONE_SURROGATE, refuse_deep, strict_dumps

DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024
"""1 MiB: ~250 pages of text, more than any model answers in one go; an output step
stores its parents' outputs again, and a parked step's context holds them too."""
MAX_OUTPUT_ENV = "HWF_MAX_OUTPUT_BYTES"
MIN_OUTPUT_BYTES = 1024


def output_limit() -> int:
    """$HWF_MAX_OUTPUT_BYTES (at least MIN_OUTPUT_BYTES), else the default."""
    raw = os.environ.get(MAX_OUTPUT_ENV, "")
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
