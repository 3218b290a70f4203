"""Kill -9 at every crash point of a 5-step and a 20-step run; resume must make it whole.

For each crash point N (see crash_driver.py) a forked child advances a fresh
run and SIGKILLs itself at point N.  Then, in this process: the state file
parses; resume completes; outputs and skips equal those of an uninterrupted
run; every channel delivery key was sent at least once, none twice before its
ok receipt could be persisted, and none after it was; exactly one ok receipt
per key; and no temp file is left.  The soak variant starts a fresh Python per
crash point instead of forking, on a 49-step design.
"""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import crash_driver
import pytest

from hwf_lsp.rules.plan import build_run_plan
from hwf_lsp.workflow import validate_designer_graph
from hwf_lsp.workflow.atomic import TEMP_PREFIX

DRIVER = Path(crash_driver.__file__)


PATTERN: tuple[tuple[str, str], ...] = (
    ("agent", "chain"), ("cond-true", "chain"), ("channel", "prev"), ("agent", "chain"),
    ("cond-false", "chain"), ("agent", "prev"), ("channel", "prev"), ("notify", "chain"),
)
"""(kind, parent) cycled: "chain" hangs off the main chain, "prev" off the node just
before; the agent and channel after the false condition are pruned (skipped)."""


def design_of(steps: int) -> dict[str, Any]:
    """A trigger and `steps` steps of every kind the runner executes unattended: agents,
    true and false conditions, channel and notification outputs (approvals park by design)."""
    nodes: list[dict[str, Any]] = [{"id": "t", "type": "trigger"}]
    chain = "t"
    for number in range(steps):
        kind, parent_kind = PATTERN[number % len(PATTERN)]
        parent = chain if parent_kind == "chain" else nodes[-1]["id"]
        node_id = f"s{number}"
        node: dict[str, Any] = {"id": node_id, "after": [parent]}
        if kind == "agent":
            node.update(type="agent", prompt=f"step {number}: summarise your input")
        elif kind == "cond-true":
            node.update(type="condition", expression=f"out.{chain}.score >= 0")
        elif kind == "cond-false":
            node.update(type="condition", expression=f"out.{chain}.score > 100")
        elif kind == "channel":
            node.update(type="output", deliver="channel", target=f"chat:{number}")
        else:
            node.update(type="output", deliver="notification")
        nodes.append(node)
        if kind in ("agent", "cond-true") and parent_kind == "chain":
            chain = node_id
    return {"name": f"crash-{steps}", "nodes": nodes}


def _driver(*args: str, timeout: float = 600) -> str:
    env = {**os.environ, "PYTHONPATH": str(Path.cwd())}
    done = subprocess.run([sys.executable, str(DRIVER), *args], capture_output=True, text=True,
                          timeout=timeout, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _sent_keys(home: Path) -> list[str]:
    """The keys the channel command received, in order (`<run_id>:<node_id>`)."""
    log = home / crash_driver.CHANNEL_LOG
    if not log.exists():
        return []
    return [json.loads(line)["key"] for line in log.read_text().splitlines() if line.strip()]


def _node_keys(keys: set[str]) -> set[str]:
    """Keys without their run id, to compare runs with different ids."""
    return {key.split(":", 1)[1] for key in keys}


def _temp_files(home: Path) -> list[str]:
    runs = home / "workflow-runs"
    return sorted(name for name in os.listdir(runs) if name.startswith(TEMP_PREFIX))


def _ok_keys(state: dict) -> list[str]:
    return [r["key"] for r in state.get("deliveries", []) if r.get("ok") is True]


def verify_point(home: Path, reference: dict, expected_keys: set[str],
                 stats: collections.Counter | None = None) -> list[str]:
    """Everything that went wrong after a kill at this point (empty: all good).

    `stats` counts what the kill left for resume to repair: orphan temp files and
    deliveries made again (at least once, same key)."""
    stats = collections.Counter() if stats is None else stats
    problems = []
    (run_id,) = (home / crash_driver.RUN_ID_FILE).read_text().split()
    state_file = home / "workflow-runs" / f"{run_id}.json"
    try:
        before = json.loads(state_file.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return [f"state file does not parse after the kill: {exc}"]
    sent_before = _sent_keys(home)
    ok_before = set(_ok_keys(before))
    stats["orphan temp files before resume"] += len(_temp_files(home))
    twice = [k for k, n in collections.Counter(sent_before).items() if n > 1]
    if twice:
        problems.append(f"sent twice before the kill: {twice}")

    after = crash_driver.make_runner(home).advance(run_id)  # resume

    if after["status"] != "completed":
        problems.append(f"resume ended {after['status']}: {after.get('error')}")
    if after["outputs"] != reference["outputs"]:
        problems.append(f"outputs differ: {after['outputs']} != {reference['outputs']}")
    if sorted(after["skipped"]) != sorted(reference["skipped"]):
        problems.append(f"skipped differ: {after['skipped']} != {reference['skipped']}")
    sent = _sent_keys(home)
    resumed_sends = sent[len(sent_before):]
    if foreign := [key for key in sent if not key.startswith(f"{run_id}:")]:
        problems.append(f"keys of another run: {foreign}")
    if missing := expected_keys - _node_keys(set(sent)):
        problems.append(f"never delivered: {sorted(missing)}")
    if unexpected := _node_keys(set(sent)) - expected_keys:
        problems.append(f"unexpected deliveries: {sorted(unexpected)}")
    if again := sorted(ok_before & set(resumed_sends)):
        problems.append(f"sent again after its ok receipt: {again}")
    receipts = collections.Counter(key.split(":", 1)[1] for key in _ok_keys(after))
    if receipts != collections.Counter(reference["ok_receipts"]):  # channel and notification
        problems.append(f"ok receipts per key: {dict(receipts)}")
    if leftovers := _temp_files(home):
        problems.append(f"temp files left: {leftovers}")
    stats["deliveries made again on resume"] += len(sent) - len(set(sent))
    return problems


def _reference(design_path: Path, home: Path) -> tuple[dict, set[str]]:
    reference = json.loads(_driver("trace", str(design_path), str(home)))
    assert reference["status"] == "completed"
    assert len(reference["ok_receipts"]) == len(set(reference["ok_receipts"]))
    keys = _sent_keys(home)
    assert len(keys) == len(set(keys)) >= 1  # an uninterrupted run delivers each key once
    return reference, _node_keys(set(keys))


def _check_sweep(tmp_path: Path, steps: int) -> dict[str, Any]:
    design = design_of(steps)
    assert validate_designer_graph(design) == []
    assert len(build_run_plan(design)) == steps
    design_path = tmp_path / "design.json"
    design_path.write_text(json.dumps(design))
    reference, keys = _reference(design_path, tmp_path / "reference")
    total = len(reference["labels"])
    lines = _driver("sweep", str(design_path), str(tmp_path / "points"), "1", str(total + 1))
    results = [json.loads(line) for line in lines.splitlines()]
    assert [r["point"] for r in results] == list(range(1, total + 2))

    failures = []
    labels: collections.Counter = collections.Counter()
    stats: collections.Counter = collections.Counter()
    for result in results:
        home = Path(result["home"])
        if result["point"] <= total:
            if not result["killed"]:
                failures.append(f"point {result['point']}: the child was not killed: {result}")
                continue
            labels[(home / crash_driver.KILLED_AT_FILE).read_text().split(" ", 1)[1].strip()] += 1
        elif result["exit"] != 0:  # one past the last point: an uninterrupted run
            failures.append(f"point {result['point']}: uninterrupted child exited {result}")
        failures += [f"point {result['point']} "
                     f"({reference['labels'][result['point'] - 1] if result['point'] <= total else 'none'}): {p}"
                     for p in verify_point(home, reference, keys, stats)]
    assert failures == [], "\n".join(failures[:20])
    figures = {"steps": steps, "crash_points": total, "delivery_keys": len(keys),
               "by_label": dict(sorted(labels.items())), **stats}
    print(f"\ncrash sweep: {json.dumps(figures)}")
    return figures


@pytest.mark.parametrize("steps", [5, 20])
def test_kill_9_at_every_crash_point(tmp_path: Path, steps: int) -> None:
    figures = _check_sweep(tmp_path, steps)
    assert set(figures["by_label"]) >= {"step-start", "before-persist", "after-persist",
                                        "after-delivery", "atomic: before os.replace",
                                        "atomic: temp written, before fsync",
                                        "atomic: before dir fsync"}
    # the kills really left work for resume: orphans to sweep, a delivery to repeat
    assert figures["orphan temp files before resume"] >= figures["by_label"][
        "atomic: before os.replace"]
    assert figures["deliveries made again on resume"] >= 1


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_kill_9_soak_fresh_process_per_point(tmp_path: Path) -> None:
    """49 steps (the most a design allows with its trigger), a fresh interpreter per point."""
    steps = 49
    design_path = tmp_path / "design.json"
    design_path.write_text(json.dumps(design_of(steps)))
    reference, keys = _reference(design_path, tmp_path / "reference")
    failures = []
    stats: collections.Counter = collections.Counter()
    env = {**os.environ, "PYTHONPATH": str(Path.cwd())}
    for point in range(1, len(reference["labels"]) + 1):
        home = tmp_path / f"p{point}"
        done = subprocess.run([sys.executable, str(DRIVER), "one", str(design_path), str(home),
                               str(point)], env=env, capture_output=True, timeout=120)
        if done.returncode != -9:
            failures.append(f"point {point}: exit {done.returncode} {done.stderr[-500:]!r}")
            continue
        failures += [f"point {point}: {p}" for p in verify_point(home, reference, keys, stats)]
    assert failures == [], "\n".join(failures[:20])
    print(f"\ncrash soak: {steps} steps, {len(reference['labels'])} crash points, fresh "
          f"processes, {len(keys)} channel keys, {dict(stats)}")
