"""Timing bounds that hold on a busy machine and still catch a blow-up.

A test does not assert how long work takes; it compares the work with itself: `growth`
times it at n and at 10 n.  Linear work takes ~10x as long, quadratic ~100x, so the bound
`LINEAR` (30) holds for the first and fails the second whatever the machine's speed;
`CONSTANT` (3) for work that must not grow with the text at all.  Times are CPU seconds,
the least of a few runs, each run repeated until it lasts a millisecond: what the work
costs, not what other processes take from it or the clock's grain.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

LINEAR = 30.0
"""The bound on `growth` of work linear in n (10 expected; quadratic work gives 100)."""
CONSTANT = 3.0
"""The bound on `growth` of work that must not grow with n (1 expected; linear gives 10)."""


def cpu_seconds(work: Callable[[], Any], runs: int = 3, least: float = 1e-3) -> float:
    """CPU seconds of one call of `work`: the least of `runs` measurements, each as many
    calls as last `least` seconds together."""
    best = float("inf")
    for _ in range(runs):
        calls = 0
        started = time.process_time()
        while True:
            work()
            calls += 1
            spent = time.process_time() - started
            if spent >= least:
                break
        best = min(best, spent / calls)
    return best


def growth(make: Callable[[int], T], work: Callable[[T], Any], n: int, factor: int = 10
           ) -> tuple[float, str]:
    """How many times longer `work` takes on `make(factor * n)` than on `make(n)` (inputs
    made before the clock starts), and both times for the failure message."""
    small_input, large_input = make(n), make(n * factor)
    small = cpu_seconds(lambda: work(small_input))
    large = cpu_seconds(lambda: work(large_input))
    return large / max(small, 1e-9), (f"{small * 1e3:.3f} ms at {n}, "
                                      f"{large * 1e3:.3f} ms at {n * factor}")
