"""A long run history does not stall the editor: 2,000 runs on disk, runs changing.

Before the shared incremental cache (workflow/run_cache.py), every run-file change
made the server re-read every run file on its event loop (180-350 ms per change
with 2,000 runs; hover stalled up to 940 ms).  Now the runs watcher re-reads only
changed files, on its own thread, and the loop reads a ready snapshot.

Measured here (run with -s to see the figures): hover latency p50/p95/max while
another process rewrites run files every 40 ms, and that the newest run still
shows in hover within a second of its write.  Bounded well under 30 s.
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
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient
from runs_helpers import RunsEnv, open_design, plain_params, wait_for

pytestmark = pytest.mark.asyncio(loop_scope="module")

ENV = RunsEnv("scale")
RUNS = 2000
DESIGNS = 40
WRITE_EVERY_S = 0.040
MEASURE_FOR_S = 6.0
P95_LIMIT_S = 0.050
MAX_LIMIT_S = 1.0
"""Loose enough for a loaded 2-core box (one descheduling can cost 100s of ms); the old
full re-read on the loop measured p95 69 ms, max 307 ms here (H10 saw stalls of 940 ms)."""

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


@pytest_lsp.fixture(config=ENV.config(), scope="module")
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(plain_params(ENV))
    yield
    await lsp_client.shutdown_session()


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
    writes = [0]

    def writer() -> None:  # "another process": rewrites random runs of other designs
        rng = random.Random(7)
        while not stop.wait(WRITE_EVERY_S):
            i = rng.randrange(RUNS)
            if i % DESIGNS == 0:
                continue
            write_run(run_state(RUN_IDS[i], f"other-{i % DESIGNS}", time.time(), f"w-{i}"))
            writes[0] += 1

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    latencies = []
    deadline = time.monotonic() + MEASURE_FOR_S
    try:
        while time.monotonic() < deadline:
            started = time.perf_counter()
            text_now = await hover_text(client, uri, at_draft)
            latencies.append(time.perf_counter() - started)
            assert "**draft**" in text_now
            await asyncio.sleep(0.010)
    finally:
        stop.set()
        thread.join()
    latencies.sort()
    p50 = statistics.median(latencies)
    p95 = latencies[int(0.95 * (len(latencies) - 1))]
    print(f"hover with {RUNS} runs, {writes[0]} run writes in {MEASURE_FOR_S:.0f} s: "
          f"p50 {p50 * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms, max {latencies[-1] * 1000:.1f} ms "
          f"over {len(latencies)} hovers; runsChanged notifications: "
          f"{len(client.runs_changed)}")
    assert writes[0] >= MEASURE_FOR_S / WRITE_EVERY_S / 3
    assert p95 < P95_LIMIT_S and latencies[-1] < MAX_LIMIT_S, (p50, p95, latencies[-1])

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
    assert seen < 1.0
