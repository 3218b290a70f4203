"""10,000 runs written by a separate process while the server is idle: all seen, none twice.

The writer is another process writing as every Hermes surface does (temp file, rename),
never touching the index.  The editor must be told of each run exactly once
(`hwf/runsChanged` deltas), and the server's listing must then hold all of them.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections import Counter

import pytest
import pytest_lsp
from pytest_lsp import LanguageClient
from runs_helpers import RunsEnv, execute, plain_params, runs_of

pytestmark = pytest.mark.asyncio(loop_scope="module")

ENV = RunsEnv("burst")
RUNS = 10_000
WRITER = """
import json, os, sys
root = sys.argv[1]
for i in range(int(sys.argv[2])):
    run_id = f"b{i:011x}"
    state = {"run_id": run_id, "name": f"burst-{i % 7}", "status": "completed", "cursor": 1,
             "outputs": {"a": i}, "skipped": [], "pending": None, "error": None,
             "updated_at": f"2026-11-30T10:{i // 6000:02d}:{i // 100 % 60:02d}.{i % 100:03d}Z"}
    tmp = os.path.join(root, f".tmp-{run_id}.json")
    with open(tmp, "w") as f:
        json.dump(state, f)
    os.replace(tmp, os.path.join(root, f"{run_id}.json"))
"""


@pytest_lsp.fixture(config=ENV.config(), scope="module")
async def client(lsp_client: LanguageClient):
    ENV.runs_dir.mkdir(parents=True, exist_ok=True)
    await lsp_client.initialize_session(plain_params(ENV))
    yield
    await lsp_client.shutdown_session()


def named(client: LanguageClient) -> tuple[Counter[str], int]:
    """How often each run was named in a delta, and how many full lists came."""
    seen: Counter[str] = Counter()
    resets = 0
    for _, params in client.runs_changed:
        if isinstance(params, dict):
            full, changed = params.get("runs"), params.get("changed")
        else:
            full, changed = getattr(params, "runs", None), getattr(params, "changed", None)
        resets += full is not None
        for run in changed or []:
            seen[run["run_id"] if isinstance(run, dict) else run.run_id] += 1
    return seen, resets


async def test_10000_runs_from_another_process_are_all_seen_none_twice(client: LanguageClient):
    sentinel = ENV.runs_dir / "c00000000000.json"  # idle: primed and watching, proven by
    sentinel.write_text('{"run_id": "c00000000000", "name": "x", "status": "completed", '
                        '"updated_at": "2026-01-01T00:00:00Z"}')
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any(  # ...one run seen (a delta or a list)
            run["run_id"] == "c00000000000" for _, p in client.runs_changed for run in runs_of(p)):
        await asyncio.sleep(0.05)
    assert any(run["run_id"] == "c00000000000" for _, p in client.runs_changed
               for run in runs_of(p))
    await asyncio.sleep(1.0)
    client.runs_changed.clear()
    before = 0
    started = time.monotonic()
    writer = await asyncio.create_subprocess_exec(
        sys.executable, "-c", WRITER, str(ENV.runs_dir), str(RUNS))
    assert await writer.wait() == 0
    written = time.monotonic()
    expected = {f"b{i:011x}" for i in range(RUNS)}
    deadline = written + 120
    while time.monotonic() < deadline:
        seen, _ = named(client)
        if expected <= set(seen):
            break
        await asyncio.sleep(0.05)
    seen, resets = named(client)
    print(f"\n{RUNS} runs written in {written - started:.1f} s; all named "
          f"{time.monotonic() - written:.2f} s after the last write, in "
          f"{len(client.runs_changed) - before} notifications")
    assert set(seen) == expected, f"{len(expected - set(seen))} runs never named"
    assert max(seen.values()) == 1, [r for r, n in seen.items() if n > 1][:5]
    assert resets == 0
    await asyncio.sleep(2.5)  # past the settle: still nothing named twice
    assert max(named(client)[0].values()) == 1
    listed = await execute(client, "hwf.listRuns")
    runs = listed["runs"] if isinstance(listed, dict) else listed.runs
    first = runs[0]["run_id"] if isinstance(runs[0], dict) else runs[0].run_id
    assert len(runs) == 200 and first == f"b{RUNS - 1:011x}"
    done = subprocess.run([sys.executable, "-m", "hwf_lsp.cli", "runs", "--all", "--json",
                           "--hermes-home", str(ENV.home)], capture_output=True, text=True,
                          timeout=300)
    assert done.stdout.count('"run_id"') == RUNS + 1  # and the first one
