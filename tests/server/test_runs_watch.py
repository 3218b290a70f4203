"""Watching and responsiveness, end to end, with measured figures (run with -s to see them).

- a run written by another process (the `hwf` CLI) shows in the code lenses and
  inlay hints within 1 s;
- while an agent step sleeps for 5 s, hover and completion answer at once (median
  under 250 ms; none near the stall a blocked loop would cause);
- cancelling through the progress leaves the run `cancelled` and its file parses.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import time

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient
from runs_helpers import (
    RunsEnv,
    chain_design,
    configure,
    execute,
    lenses,
    open_design,
    runs_of,
    wait_for,
)
from support.lsp import client_fixture

from hwf_lsp.workflow.runner import SPEC_KEYS

pytestmark = pytest.mark.asyncio(loop_scope="module")

ENV = RunsEnv("watch")
LATENCY_LIMIT_S = 3.0
"""The 300 ms target (bench/README.md) for a run written elsewhere, with 10x headroom
(measured: p50 16-25 ms, max 103-124 ms on 2 shared cores)."""
AGENT_SLEEP_S = 60
"""Far longer than the test: the step is cancelled while it sleeps, whatever the load (with
5 s, a loaded 2-core box let the step finish just before the cancel arrived)."""
MEDIAN_LIMIT_S = 0.250
STALL_LIMIT_S = 2.5
"""A loop blocked by the agent step would wait out its sleep; measured: p50 0.7-1.0 ms, max
13-16 ms. The median has 250x headroom, every answer 2.5 s (a loaded 2-core box may
deschedule one request for 100s of ms, which must not fail the test)."""


client = client_fixture(ENV.config(), ENV.workspace,
                        settings={"agent": {"command": ENV.agent_command()}})


def hwf(*args: str) -> subprocess.CompletedProcess[str]:
    """The `hwf` CLI as another process sharing the Hermes home."""
    env = {**os.environ, "HERMES_HOME": str(ENV.home),
           "HWF_AGENT_COMMAND": " ".join([sys.executable, str(ENV.agent_command()[-1])])}
    return subprocess.run([sys.executable, "-m", "hwf_lsp.cli", *args], capture_output=True,
                          text=True, env=env, timeout=60)


async def hints(client: LanguageClient, uri: str, text: str) -> list[tuple[int, str]]:
    lines = text.splitlines()
    found = await client.text_document_inlay_hint_async(types.InlayHintParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(start=types.Position(line=0, character=0),
                          end=types.Position(line=len(lines), character=0))))
    return [(hint.position.line, hint.label) for hint in found or []]


async def seen_in_editor(client: LanguageClient, uri: str, text: str, run_id: str,
                         status: str, expect_lens: bool, expect_hint: str) -> dict[str, float]:
    """Latencies (s) from the run file's last write to the notification, lens and hint."""
    path = ENV.runs_dir / f"{run_id}.json"
    written = path.stat().st_mtime

    def notified() -> float | None:
        for at, params in client.runs_changed:
            if at >= written and any(r["run_id"] == run_id and r["status"] == status
                                     for r in runs_of(params)):
                return at
        return None

    notified_at = await wait_for(notified, timeout=5)
    deadline = time.time() + 5
    lens_at = hint_at = None
    while (lens_at is None or hint_at is None) and time.time() < deadline:
        now_lenses = await lenses(client, uri)
        has_answer = any(lens[1] == "Answer…" and lens[3] == [run_id] for lens in now_lenses)
        if lens_at is None and has_answer == expect_lens:
            lens_at = time.time()
        if hint_at is None and any(label == expect_hint for _, label in
                                   await hints(client, uri, text)):
            hint_at = time.time()
        await asyncio.sleep(0.005)
    assert lens_at is not None and hint_at is not None, "lens or hint never showed the run"
    return {"notification": notified_at - written, "lens": lens_at - written,
            "hint": hint_at - written}


async def test_run_written_by_the_cli_shows_within_one_second(client: LanguageClient):
    path = ENV.workspace / "cli-watch.hwf.json"
    design = chain_design("cli-watch", ["draft"], [
        {"id": "gate", "type": "approval", "question": "Ship?", "after": ["draft"]}])
    text = json.dumps(design, indent=2)
    path.write_text(text)
    uri = path.as_uri()
    open_design(client, uri, text)
    assert not [lens for lens in await lenses(client, uri) if lens[1] == "Answer…"]
    refreshes_before = client.lens_refreshes

    started = hwf("run", str(path))
    assert started.returncode == 3, started.stderr  # parked at the approval
    run_id = next(p.stem for p in ENV.runs_dir.glob("*.json"))
    parked = await seen_in_editor(client, uri, text, run_id, "awaiting_approval",
                                  expect_lens=True, expect_hint="⏸ waiting for approval")
    answered = hwf("answer", run_id, "approve")
    assert answered.returncode == 0, answered.stderr
    done = await seen_in_editor(client, uri, text, run_id, "completed", expect_lens=False,
                                expect_hint="✓ done")
    assert client.lens_refreshes > refreshes_before
    assert client.hint_refreshes > 0

    # a burst of writes by "another process" (atomic, like every writer of runs)
    burst = []
    phases = random.Random(4)  # writes at random points of the 200 ms poll period
    for i in range(8):
        await asyncio.sleep(phases.uniform(0, 0.2))
        state = ENV.load_run(run_id)
        state["status"], state["cursor"] = "awaiting_approval", 1
        state["pending"] = {"kind": "approval", "node": "gate", "question": f"again {i}?",
                            "options": ["approve", "reject"]}
        state["outputs"].pop("gate", None)
        tmp = ENV.runs_dir / f".tmp-{run_id}.json.x"
        tmp.write_text(json.dumps(state))
        os.replace(tmp, ENV.runs_dir / f"{run_id}.json")
        burst.append(await seen_in_editor(client, uri, text, run_id, "awaiting_approval",
                                          expect_lens=True, expect_hint="⏸ waiting for approval"))
        state["status"], state["pending"] = "completed", None
        await asyncio.sleep(phases.uniform(0, 0.2))
        state["outputs"]["gate"] = {"choice": "approve"}
        tmp.write_text(json.dumps(state))
        os.replace(tmp, ENV.runs_dir / f"{run_id}.json")
        burst.append(await seen_in_editor(client, uri, text, run_id, "completed",
                                          expect_lens=False, expect_hint="✓ done"))
    figures = [parked, done, *burst]
    for key in ("notification", "lens", "hint"):
        values = [f[key] for f in figures]
        print(f"\nrun file written -> {key}: p50 {statistics.median(values) * 1000:.0f} ms, "
              f"max {max(values) * 1000:.0f} ms over {len(values)} writes")
        assert max(values) < LATENCY_LIMIT_S, (key, values)


async def test_slow_agent_keeps_hover_and_completion_fast_and_cancel_via_progress(
        client: LanguageClient):
    await configure(client, {"agent": {"command": ENV.agent_command(sleep=AGENT_SLEEP_S)}})
    ENV.reset_calls()
    uri = ENV.uri("slow")
    text = open_design(client, uri, chain_design("slow-demo", ["slow", "after"]))
    tokens_before = set(client.progress_reports)
    run = asyncio.create_task(execute(client, "hwf.startRun", uri))
    await wait_for(lambda: ENV.calls(), timeout=10)  # the agent is sleeping now
    token = next(t for t in client.progress_reports if t not in tokens_before)

    lines = text.splitlines()
    type_line = next(i for i, line in enumerate(lines) if '"type": "agent"' in line)
    at_type = types.Position(line=type_line, character=lines[type_line].index("agent") + 2)
    hover_times, completion_times = [], []
    for _ in range(20):
        started = time.perf_counter()
        answer = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=at_type))
        hover_times.append(time.perf_counter() - started)
        assert answer is not None
        started = time.perf_counter()
        items = await client.text_document_completion_async(types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=at_type))
        completion_times.append(time.perf_counter() - started)
        assert items is not None and any(i.label == "condition" for i in items.items)
    assert not run.done(), "the agent should still be sleeping"
    for name, values in (("hover", hover_times), ("completion", completion_times)):
        print(f"\n{name} during a {AGENT_SLEEP_S} s agent step: p50 {statistics.median(values) * 1000:.1f} ms,"
              f" max {max(values) * 1000:.1f} ms over {len(values)}")
        # a blocked loop would take seconds; a loaded 2-core box may add slow outliers
        assert statistics.median(values) < MEDIAN_LIMIT_S and max(values) < STALL_LIMIT_S, \
            (name, values)

    cancelled_at = time.perf_counter()
    client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    summary = await asyncio.wait_for(run, 10)
    print(f"\ncancel through progress -> command answered in "
          f"{(time.perf_counter() - cancelled_at) * 1000:.0f} ms")
    assert summary["status"] == "cancelled", summary
    state = json.loads((ENV.runs_dir / f"{summary['run_id']}.json").read_text())
    assert list(state)[: len(SPEC_KEYS)] == list(SPEC_KEYS)
    assert state["status"] == "cancelled" and state["outputs"] == {}
    assert state["log"][-1]["event"] == "cancelled"
    assert [c.rsplit(":", 1)[1] for c in ENV.calls()] == ["slow"]  # "after" never ran
    assert client.progress_reports[token][-1].kind == "end"

    # the same through the command: hwf.cancelRun on a run this server is advancing
    ENV.reset_calls()
    run = asyncio.create_task(execute(client, "hwf.startRun", uri))
    await wait_for(lambda: ENV.calls(), timeout=10)
    run_id = ENV.calls()[0].split(":")[1]
    cancelled = await execute(client, "hwf.cancelRun", run_id)
    assert cancelled["status"] == "cancelled"
    assert (await asyncio.wait_for(run, 10))["status"] == "cancelled"
    await configure(client, {"agent": {"command": ENV.agent_command()}})
