"""Medians, percentiles and the log-log growth fit, by hand (numpy is not a bench dependency)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

PROC_STAT = Path("/proc/stat")


def cpu_ticks() -> tuple[int, int] | None:
    """(all, stolen) CPU ticks of the machine so far (Linux), else None.  Stolen ticks are
    time the hypervisor ran someone else while this VM wanted the CPU: on a shared VM the
    p99 of a run follows them, whatever the code does (`stolen_share`)."""
    try:
        fields = [int(x) for x in PROC_STAT.read_text().split("\n", 1)[0].split()[1:9]]
    except (OSError, ValueError):
        return None
    return sum(fields), fields[7] if len(fields) > 7 else 0


def stolen_share(before: tuple[int, int] | None, after: tuple[int, int] | None) -> float | None:
    """The share of the CPU time between two `cpu_ticks()` that the hypervisor stole."""
    if before is None or after is None or after[0] <= before[0]:
        return None
    return (after[1] - before[1]) / (after[0] - before[0])


def percentile(values: list[float], fraction: float) -> float:
    """Linear interpolation between closest ranks (numpy's default), on a sorted copy."""
    ordered = sorted(values)
    if not ordered:
        return math.nan
    position = (len(ordered) - 1) * fraction
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def median(values: list[float]) -> float:
    return percentile(values, 0.5)


def summary(seconds: list[float]) -> dict[str, Any]:
    """n, p50, p90, p99, max and mean in milliseconds (None when there are no samples)."""
    if not seconds:
        return {"n": 0, "p50_ms": None, "p90_ms": None, "p99_ms": None, "max_ms": None,
                "mean_ms": None}
    ms = [s * 1000 for s in seconds]
    return {
        "n": len(ms),
        "p50_ms": round(percentile(ms, 0.5), 3),
        "p90_ms": round(percentile(ms, 0.9), 3),
        "p99_ms": round(percentile(ms, 0.99), 3),
        "max_ms": round(max(ms), 3),
        "mean_ms": round(sum(ms) / len(ms), 3),
    }


def growth_exponent(xs: list[float], ys: list[float]) -> dict[str, Any] | None:
    """Least-squares fit of log y = k log x + c: `k` is how cost grows (1 = linear).

    Needs at least two points with positive x and y; r2 says how well a power law fits.
    """
    points = [(math.log(x), math.log(y)) for x, y in zip(xs, ys, strict=True) if x > 0 and y > 0]
    if len(points) < 2:
        return None
    n = len(points)
    mean_x = sum(p[0] for p in points) / n
    mean_y = sum(p[1] for p in points) / n
    sxx = sum((p[0] - mean_x) ** 2 for p in points)
    if sxx == 0:
        return None
    sxy = sum((p[0] - mean_x) * (p[1] - mean_y) for p in points)
    slope = sxy / sxx
    intercept = mean_y - slope * mean_x
    residual = sum((p[1] - (slope * p[0] + intercept)) ** 2 for p in points)
    total = sum((p[1] - mean_y) ** 2 for p in points)
    r2 = 1.0 - residual / total if total > 0 else 1.0
    return {"exponent": round(slope, 3), "r2": round(r2, 3), "points": n}
