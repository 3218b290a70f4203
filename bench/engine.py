"""The engine without an editor: validator throughput, runner persistence cost, resume cost.

Persistence overhead per step = (a run with the real RunStore: temp file + fsync + os.replace
+ fsync dir, minus the same run with a store that keeps states in memory) / steps, both driven
by a Runner whose CallableAgentSeam answers instantly, so the difference is persistence alone.
"""

from __future__ import annotations

import copy
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.stats import median

MAX_STEPS_DESIGN_NODES = 50
"""The rulebook caps a design at 50 nodes: a trigger plus 49 steps is the longest run."""


def validator_calls_per_second(design: Any, seconds: float, rounds: int) -> dict[str, Any]:
    """validate_designer_graph calls/s on `design`: median of `rounds` timed windows."""
    from hwf_lsp.workflow import validate_designer_graph

    defects = len(validate_designer_graph(design))
    rates: list[float] = []
    for _ in range(rounds):
        calls = 0
        started = time.perf_counter()
        deadline = started + seconds
        while True:
            for _ in range(20):
                validate_designer_graph(design)
            calls += 20
            now = time.perf_counter()
            if now >= deadline:
                break
        rates.append(calls / (now - started))
    return {"calls_per_s": round(median(rates), 1), "defects": defects,
            "us_per_call": round(1e6 / median(rates), 2)}


def chain_design(steps: int, last: str = "agent") -> dict[str, Any]:
    """A trigger and `steps` steps in a chain; every step an agent except maybe the last."""
    nodes: list[dict[str, Any]] = [{"id": "start", "type": "trigger"}]
    for index in range(steps):
        node: dict[str, Any] = {"id": f"s{index:02d}", "type": "agent",
                                "prompt": f"Step {index}: summarise the context.",
                                "after": [nodes[-1]["id"]]}
        if index == steps - 1 and last == "approval":
            node = {"id": node["id"], "type": "approval", "question": "Ship it?",
                    "after": node["after"]}
        nodes.append(node)
    return {"name": "bench-chain", "nodes": nodes}


def _memory_store_class() -> type:
    from hwf_lsp.workflow.stores import RunStore

    class MemoryRunStore(RunStore):
        """Same Runner code path, but save keeps the state in memory: no I/O at all."""

        def __init__(self, root: Path) -> None:
            super().__init__(root)
            self.states: dict[str, dict[str, Any]] = {}

        def save(self, state: dict[str, Any]) -> Path:
            self.states[state["run_id"]] = state
            return self.path(state["run_id"])

        def load(self, run_id: str) -> dict[str, Any]:
            return copy.deepcopy(self.states[run_id])

        def sweep(self, run_id: str) -> list[Path]:
            return []

    return MemoryRunStore


def _instant_runner(store: Any) -> Any:
    from hwf_lsp.workflow.runner import Runner
    from hwf_lsp.workflow.seams import CallableAgentSeam

    return Runner(store, agent=CallableAgentSeam(lambda request: {"output": "ok"}))


def durable_writes_seconds(directory: Path, payload: int, count: int) -> float:
    """Seconds the disk alone takes for `count` durable replaces of a `payload`-byte file
    (write, fsync, rename, fsync dir): the runner cannot persist faster than this."""
    import os

    data = b"x" * payload
    target = directory / "floor.json"
    started = time.perf_counter()
    for index in range(count):
        temp = directory / f".floor-{index}.tmp"
        with open(temp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, target)
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    return time.perf_counter() - started


def runner_overhead(runs: int, steps: int = MAX_STEPS_DESIGN_NODES - 1) -> dict[str, Any]:
    """Per-step persistence cost: median run time with fsync minus in memory, over `steps`.

    The disk's own cost is measured between the runs (same number of writes of a state-sized
    file), because fsync latency on a shared machine drifts by an order of magnitude.
    """
    from hwf_lsp.workflow.stores import RunStore

    design = chain_design(steps)
    memory_store = _memory_store_class()
    durable: list[float] = []
    in_memory: list[float] = []
    disk: list[float] = []
    state_bytes = 8 * 1024
    with tempfile.TemporaryDirectory(prefix="hwf-bench-runs-") as scratch:
        floor_dir = Path(scratch) / "fsync-floor"
        floor_dir.mkdir()
        for index in range(runs):
            for kind, samples in (("disk", durable), ("memory", in_memory)):
                root = Path(scratch) / f"{kind}-{index}"
                store = RunStore(root) if kind == "disk" else memory_store(root)
                runner = _instant_runner(store)
                started = time.perf_counter()
                state = runner.start(design)
                samples.append(time.perf_counter() - started)
                if state["status"] != "completed":
                    raise RuntimeError(f"bench run did not complete: {state.get('error')}")
            state_bytes = len(json.dumps(state))
            disk.append(durable_writes_seconds(floor_dir, state_bytes, steps))
    per_step_ms = (median(durable) - median(in_memory)) / steps * 1000
    disk_ms = median(disk) / steps * 1000
    return {
        "disk_floor_per_write_ms": round(disk_ms, 3),
        "steps": steps,
        "runs": runs,
        "run_with_fsync_ms": round(median(durable) * 1000, 2),
        "run_in_memory_ms": round(median(in_memory) * 1000, 2),
        "overhead_per_step_ms": round(per_step_ms, 3),
        "overhead_minus_disk_floor_ms": round(per_step_ms - disk_ms, 3),
        "state_bytes_at_end": state_bytes,
    }


def resume_cost(samples: int, steps: int = MAX_STEPS_DESIGN_NODES - 1) -> dict[str, Any]:
    """Cost of `advance` on a run parked at the last of `steps` steps (lock, load, plan, check).

    Also the cost of `answer`, which resumes it to completion (one step and a persist).
    """
    from hwf_lsp.workflow.stores import RunStore

    design = chain_design(steps, last="approval")
    advance_times: list[float] = []
    answer_times: list[float] = []
    with tempfile.TemporaryDirectory(prefix="hwf-bench-resume-") as scratch:
        store = RunStore(Path(scratch))
        runner = _instant_runner(store)
        for _ in range(samples):
            parked = runner.start(design)
            if parked["status"] != "awaiting_approval":
                raise RuntimeError(f"expected a parked run, got {parked['status']}")
            run_id = parked["run_id"]
            started = time.perf_counter()
            runner.advance(run_id)
            advance_times.append(time.perf_counter() - started)
            started = time.perf_counter()
            done = runner.answer(run_id, "approve")
            answer_times.append(time.perf_counter() - started)
            if done["status"] != "completed":
                raise RuntimeError(f"resumed run ended {done['status']}")
    return {
        "steps": steps,
        "samples": samples,
        "advance_parked_ms": round(median(advance_times) * 1000, 3),
        "answer_to_completion_ms": round(median(answer_times) * 1000, 3),
    }


def measure_engine(design: Any, smoke: bool) -> dict[str, Any]:
    """Every engine figure, each guarded so a missing module shows as a reason, not a crash."""
    results: dict[str, Any] = {}
    jobs = {
        "validator": lambda: validator_calls_per_second(design, 0.1 if smoke else 1.0,
                                                        2 if smoke else 5),
        "runner": lambda: runner_overhead(3 if smoke else 15),
        "resume": lambda: resume_cost(3 if smoke else 20),
    }
    for name, job in jobs.items():
        try:
            results[name] = job()
        except Exception as exc:  # noqa: BLE001 - report what is missing, measure the rest
            results[name] = {"error": f"{type(exc).__name__}: {exc}"[:300]}
    return results
