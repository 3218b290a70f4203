"""A long run history does not stall the editor: 2,000 runs on disk, runs changing.

Before the shared incremental cache (workflow/run_cache.py), every run-file change
made the server re-read every run file on its event loop (180-350 ms per change
with 2,000 runs; hover stalled up to 940 ms).  Now the runs watcher re-reads only
changed files, on its own thread, and the loop reads a ready snapshot.

Measured here (run with -s to see the figures): hover latency p50/p95/max in quiet
windows and in windows where another thread rewrites run files every 40 ms (the
bound is a ratio of the two), and that the newest run still shows in hover soon
after its write.  Bounded well under 30 s.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import threading
import time

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from runs_helpers import RunsEnv, open_design, wait_for
from support.lsp import client_fixture

pytestmark = pytest.mark.asyncio(loop_scope="module")

ENV = RunsEnv("scale")
RUNS = 2000
DESIGNS = 40
WRITE_EVERY_S = 0.040
WINDOWS = 6
WINDOW_S = 1.5
"""Quiet and writing windows alternate, so a slow phase of a loaded machine falls on both."""
P95_RATIO = 10.0
FLOOR_S = 0.002
"""Hover's p95 while runs are written: within 10x its p95 in the quiet windows of the same
test (at least 2 ms), not an absolute bound (bench/README.md, "Targets": a ratio, or 10x
headroom).
Measured on 2 shared cores: quiet p95 2-5 ms, writing p95 4-27 ms; the old full re-read on
the loop measured p95 69 ms, max 307 ms (H10 saw stalls of 940 ms): every hover during
writes waited, which this ratio catches; one descheduling (a single max) does not fail it."""
MIN_WRITES = 10
"""Enough writes to exercise the watcher (a loaded machine made 61-142 in 6 s)."""
SEEN_WITHIN_S = 3.0
"""The 300 ms target (bench/README.md) for a run written elsewhere, with 10x headroom."""

DESIGN = {"name": "scale-demo", "nodes": [
    {"id": "start", "type": "trigger"},
    {"id": "draft", "type": "agent", "prompt": "Draft it.", "after": ["start"]},
    {"id": "check", "type": "condition", "expression": "out.draft.ok == true",
     "after": ["draft"]},
    {"id": "gate", "type": "approval", "question": "Ship?", "after": ["check"]},
    {"id": "ship", "type": "output", "deliver": "notification", "after": ["gate"]},
]}


def run_state(run_id: str, name: str, stamp: float, marker: str) -> dict:
    """A realistic run file (~3 KB): snapshot, outputs, a log."""
    at = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(stamp)) + f".{int(stamp * 1000) % 1000:03d}Z"
    return {
        "run_id": run_id, "name": name, "cursor": 4, "status": "completed",
        "outputs": {"draft": {"ok": True, "text": marker + " " + "lorem ipsum " * 20},
                    "check": True, "gate": {"choice": "approve"}, "ship": {"gate": "x"}},
        "skipped": [], "pending": None, "error": None, "answers": {"gate": "approve"},
        "deliveries": [], "attempts": {}, "design": {**DESIGN, "name": name},
        "created_at": at, "updated_at": at,
        "log": [{"at": at, "node": n["id"], "event": "completed", "detail": "done"}
                for n in DESIGN["nodes"]],
    }


def write_run(state: dict) -> None:
    path = ENV.runs_dir / f"{state['run_id']}.json"
    tmp = ENV.runs_dir / f".tmp-{path.name}.{threading.get_ident()}"
    tmp.write_text(json.dumps(state))
    os.replace(tmp, path)


def populate() -> list[str]:
    ENV.runs_dir.mkdir(parents=True, exist_ok=True)
    base = time.time() - 86400
    ids = []
    for i in range(RUNS):
        run_id = f"{i:012x}"
        name = "scale-demo" if i % DESIGNS == 0 else f"other-{i % DESIGNS}"
        write_run(run_state(run_id, name, base + i, f"old-{i}"))
        ids.append(run_id)
    return ids


RUN_IDS = populate()


client = client_fixture(ENV.config(), ENV.workspace)


async def hover_text(client: LanguageClient, uri: str, position: types.Position) -> str:
    answer = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=uri), position=position))
    assert answer is not None
    contents = answer.contents
    return getattr(contents, "value", None) or str(contents)


async def test_hover_stays_fast_while_runs_change_with_2000_runs(client: LanguageClient):
    uri = ENV.uri("scale-demo")
    text = open_design(client, uri, DESIGN)
    lines = text.splitlines()
    line = next(i for i, s in enumerate(lines) if '"id": "draft"' in s)
    at_draft = types.Position(line=line, character=lines[line].index('"draft"') + 2)
    newest = f"{RUNS - DESIGNS:012x}"  # the newest scale-demo run on disk
    await wait_for(lambda: bool(client.diagnostics.get(uri) is not None), timeout=20)
    first = time.perf_counter()
    # the first diagnostics never wait for the history; the newest run follows
    for _ in range(500):
        if f"old-{RUNS - DESIGNS}" in await hover_text(client, uri, at_draft):
            break
        await asyncio.sleep(0.01)
    shown = time.perf_counter() - first
    print(f"\nfirst diagnostics -> hover shows the newest run: {shown * 1000:.0f} ms")
    assert shown < 5.0

    stop = threading.Event()
    writing = threading.Event()
    writes = [0]

    def writer() -> None:  # "another process": rewrites random runs of other designs
        rng = random.Random(7)
        while not stop.wait(WRITE_EVERY_S):
            if not writing.is_set():
                continue
            i = rng.randrange(RUNS)
            if i % DESIGNS == 0:
                continue
            write_run(run_state(RUN_IDS[i], f"other-{i % DESIGNS}", time.time(), f"w-{i}"))
            writes[0] += 1

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    latencies: dict[bool, list[float]] = {False: [], True: []}
    try:  # quiet and writing windows alternate: a slow phase of the machine hits both
        for window in range(WINDOWS):
            busy = window % 2 == 1
            (writing.set if busy else writing.clear)()
            deadline = time.monotonic() + WINDOW_S
            while time.monotonic() < deadline:
                started = time.perf_counter()
                text_now = await hover_text(client, uri, at_draft)
                latencies[busy].append(time.perf_counter() - started)
                assert "**draft**" in text_now
                await asyncio.sleep(0.010)
    finally:
        stop.set()
        thread.join()
    quiet, busy = (sorted(latencies[k]) for k in (False, True))
    figures = {name: (statistics.median(values), values[int(0.95 * (len(values) - 1))],
                      values[-1]) for name, values in (("quiet", quiet), ("writing", busy))}
    for name, (p50, p95, top) in figures.items():
        print(f"hover with {RUNS} runs, {name}: p50 {p50 * 1000:.1f} ms, "
              f"p95 {p95 * 1000:.1f} ms, max {top * 1000:.1f} ms")
    print(f"{writes[0]} run writes in {WINDOWS // 2 * WINDOW_S:.0f} s of writing; "
          f"runsChanged notifications: {len(client.runs_changed)}")
    assert writes[0] >= MIN_WRITES
    floor = max(figures["quiet"][1], FLOOR_S)
    assert figures["writing"][1] <= P95_RATIO * floor, figures
    # a new run of this design shows in hover within a second of its write
    marker = f"fresh-{time.time_ns()}"
    write_run(run_state(newest, "scale-demo", time.time() + 5, marker))
    written = time.perf_counter()
    for _ in range(200):
        if marker in await hover_text(client, uri, at_draft):
            break
        await asyncio.sleep(0.01)
    seen = time.perf_counter() - written
    print(f"run file written -> shown in hover: {seen * 1000:.0f} ms")
    assert seen < SEEN_WITHIN_S
