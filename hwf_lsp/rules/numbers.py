"""Whole numbers from JSON values, without silent coercion.

A plain int() would truncate 2.5 to 2 and cast True to 1; the rulebook rejects a
malformed count instead of rounding it, so every count goes through here.
"""

from __future__ import annotations

import math
from typing import Any


def whole_number(value: Any) -> int | None:
    """`value` as an int when it is a whole JSON number, else None.

    int (never bool) -> itself; a finite integral float such as 3.0 -> 3;
    anything else (2.5, True, "3", None, NaN, inf, lists...) -> None.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return None
