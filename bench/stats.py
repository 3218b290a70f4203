"""Medians, percentiles and the log-log growth fit, by hand (numpy is not a bench dependency)."""

from __future__ import annotations

import math
from typing import Any


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
    """n, p50, p90, p99 and mean in milliseconds (None when there are no samples)."""
    if not seconds:
        return {"n": 0, "p50_ms": None, "p90_ms": None, "p99_ms": None, "mean_ms": None}
    ms = [s * 1000 for s in seconds]
    return {
        "n": len(ms),
        "p50_ms": round(percentile(ms, 0.5), 3),
        "p90_ms": round(percentile(ms, 0.9), 3),
        "p99_ms": round(percentile(ms, 0.99), 3),
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
