"""The run-history section: the same server and CLI with 0, 1,000, 10,000 and 100,000 runs.

    python -m bench --only history          # this section alone (~10 min with 100,000 runs)
    python -m bench --only history --smoke  # 0 and 500 runs, few samples

Each history is real-looking run files (bench/history_gen.py, generated once and kept
under bench/results/history-cache), hard-linked into a fresh Hermes home.  Per history:

- cold boot: the index deleted, the first `hwf runs`; then an index rebuild killed
  with SIGKILL halfway, and the listing after it compared with a full read;
- `hwf runs` (default page), warm: median wall time of a whole process;
- the server, spawned again for each sample: spawn → first publishDiagnostics of an open
  design, and spawn → the first completion that offers a path from the newest run; the
  samples alternate with a server on an empty runs dir, and the first-diagnostics ratio is
  to those (a ratio of one moment: start-up times swing with the machine's load);
- on the last server: RSS once settled, idle CPU over IDLE_S seconds (/proc utime+stime),
  `hwf.listRuns` latency, and run files written by this (another) process → the
  `hwf/runsChanged` naming them.

Also: RSS after 1,000 and after 100,000 keystrokes (0 runs), and workspace/symbol at
4,000 designs.  Every figure is compared with the 0-run one taken in the same run.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.history_gen import STEPS, cached_history, copy_history, design_name, run_state
from bench.lsp_client import LspClient
from bench.servers import client_capabilities

COUNTS = (0, 1_000, 10_000, 100_000)
SMOKE_COUNTS = (0, 500)
DESIGN = design_name(0)
IDLE_S = 10.0
WAIT_S = 60.0

TARGETS = {
    "idle_cpu_pct": 0.5, "first_diagnostics_ratio": 1.2, "run_aware_completion_s": 1.0,
    "rss_ratio": 1.3, "hwf_runs_ratio": 2.0, "list_runs_ms": 20.0, "foreign_write_ms": 300.0,
    "cold_first_listing_s": 3.0, "keystroke_rss_ratio": 1.1, "workspace_symbols_ms": 20.0,
}


class HistoryClient(LspClient):
    """The bench client, also recording hwf/runsChanged (arrival time, params)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.runs_changed: list[tuple[float, dict[str, Any]]] = []

    async def _dispatch(self, message: dict[str, Any], arrived: float) -> None:
        if message.get("method") == "hwf/runsChanged":
            self.runs_changed.append((arrived, message.get("params") or {}))
            return
        await super()._dispatch(message, arrived)


def design_text() -> str:
    """The open design: the generated runs' design, its condition being typed at `out.fetch.`."""
    nodes = [dict(node) for node in STEPS]
    for node in nodes:
        if node["type"] == "condition":
            node["expression"] = "out.fetch.ok == true"
    return json.dumps({"name": DESIGN, "nodes": nodes}, indent=2)


def completion_position(text: str) -> dict[str, int]:
    offset = text.index("out.fetch.") + len("out.fetch.")
    line = text.count("\n", 0, offset)
    return {"line": line, "character": offset - (text.rfind("\n", 0, offset) + 1)}


def rss_kb(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def python() -> str:
    return sys.executable


def hwf_runs_s(home: Path, *extra: str) -> float:
    started = time.perf_counter()
    subprocess.run([python(), "-m", "hwf_lsp.cli", "runs", "--hermes-home", str(home), *extra],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                   timeout=600)
    return time.perf_counter() - started


def index_files(home: Path) -> list[Path]:
    folder = home / ".hwf-index"
    return list(folder.glob("*")) if folder.exists() else []


def drop_index(home: Path) -> None:
    shutil.rmtree(home / ".hwf-index", ignore_errors=True)


BUILD = ("import sys; from hwf_lsp.workflow.stores import RunStore; s = RunStore(sys.argv[1]); "
         "s.index.sync(); s.index.build()")


def build_index(home: Path) -> float:
    started = time.perf_counter()
    subprocess.run([python(), "-c", BUILD, str(home / "workflow-runs")], check=True, timeout=1200)
    return time.perf_counter() - started


def interrupted_rebuild_is_harmless(home: Path, after_s: float) -> dict[str, Any]:
    """Rebuild the index from scratch, SIGKILL it after `after_s`, then list: the listing
    must equal a full read of the files (newest 20 by updated_at, then run id)."""
    drop_index(home)
    proc = subprocess.Popen([python(), "-c", BUILD, str(home / "workflow-runs")])
    time.sleep(after_s)
    killed = proc.poll() is None
    if killed:
        proc.send_signal(signal.SIGKILL)
    proc.wait()
    check = ("import sys, json; from hwf_lsp.workflow.stores import RunStore; "
             "print(json.dumps([s['run_id'] for s in RunStore(sys.argv[1]).recent(20)]))")
    listed = json.loads(subprocess.run([python(), "-c", check, str(home / "workflow-runs")],
                                       capture_output=True, text=True, check=True).stdout)
    truth = full_read_newest(home / "workflow-runs", 20)
    return {"killed_after_s": after_s if killed else None, "listing_equals_files": listed == truth}


def full_read_newest(root: Path, count: int) -> list[str]:
    """The newest run ids by reading every file (the definition a listing must meet)."""
    from hwf_lsp.workflow.run_index import sort_stamp

    found = []
    for path in root.glob("*.json"):
        state = json.loads(path.read_text())
        found.append((sort_stamp(state, path.stat().st_mtime), state["run_id"]))
    found.sort(reverse=True)
    return [run_id for _, run_id in found[:count]]


def prepare_home(base: Path, cache: Path, count: int, name: str | None = None) -> Path:
    home = base / (name or f"home-{count}")
    if home.exists():
        shutil.rmtree(home)
    runs = home / "workflow-runs"
    if count:
        copy_history(cached_history(cache, count), runs)
    else:
        runs.mkdir(parents=True)
    then = time.time() - 5
    os.utime(runs, (then, then))  # a directory stamp old enough to trust
    return home


async def start_server(home: Path, workspace: Path) -> tuple[HistoryClient, str, str]:
    client = HistoryClient([python(), "-m", "hwf_lsp"], cwd=str(workspace),
                           env={"HERMES_HOME": str(home)})
    await client.start()
    await client.request("initialize", {
        "processId": None, "rootUri": workspace.as_uri(),
        "workspaceFolders": [{"uri": workspace.as_uri(), "name": "ws"}],
        "capabilities": client_capabilities({}),
    }, timeout=WAIT_S)
    await client.notify("initialized", {})
    uri = (workspace / f"{DESIGN}.hwf.json").as_uri()
    text = design_text()
    await client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "json", "version": 1, "text": text}})
    return client, uri, text


async def run_aware_completion_s(client: HistoryClient, uri: str, text: str,
                                 expect: bool) -> float | None:
    """Seconds from spawn until completion at `out.fetch.` offers `rows` (a key that only
    the newest run's outputs know); None when it does not within WAIT_S (or not expected)."""
    position = completion_position(text)
    deadline = time.perf_counter() + (WAIT_S if expect else 0.5)
    while time.perf_counter() < deadline:
        result = await client.request("textDocument/completion", {
            "textDocument": {"uri": uri}, "position": position}, timeout=WAIT_S)
        items = result.get("items", []) if isinstance(result, dict) else (result or [])
        if any(item.get("label") == "rows" for item in items):
            return time.perf_counter() - client.spawned_at
        await asyncio.sleep(0.01)
    return None


async def server_sample(home: Path, workspace: Path, expect_runs: bool) -> dict[str, Any]:
    client, uri, text = await start_server(home, workspace)
    try:
        publish = await client.wait_publish(uri, 1, 0, WAIT_S)
        first = publish.at - client.spawned_at
        aware = await run_aware_completion_s(client, uri, text, expect_runs)
    finally:
        await client.stop()
    return {"first_diagnostics_s": first, "run_aware_completion_s": aware,
            "aware_after_first_s": None if aware is None else aware - first}


async def settled_server(home: Path, workspace: Path, cfg_smoke: bool) -> dict[str, Any]:
    """One server: RSS, idle CPU, listRuns, runs written by this process → runsChanged."""
    client, uri, text = await start_server(home, workspace)
    out: dict[str, Any] = {}
    try:
        await client.wait_publish(uri, 1, 0, WAIT_S)
        await asyncio.sleep(2.0 if cfg_smoke else 4.0)  # priming, the background build
        out["rss_kb"] = rss_kb(client.pid)
        idle = 2.0 if cfg_smoke else IDLE_S
        before, started = cpu_s(client.pid), time.perf_counter()
        await asyncio.sleep(idle)
        out["idle_cpu_pct"] = 100 * (cpu_s(client.pid) - before) / (time.perf_counter() - started)
        await client.request("workspace/executeCommand",
                             {"command": "hwf.listRuns", "arguments": []}, timeout=WAIT_S)
        samples = []
        for _ in range(5 if cfg_smoke else 20):
            started = time.perf_counter()
            await client.request("workspace/executeCommand",
                                 {"command": "hwf.listRuns", "arguments": []}, timeout=WAIT_S)
            samples.append(time.perf_counter() - started)
        out["list_runs_ms"] = 1000 * statistics.median(samples)
        out["foreign_write_ms"] = await foreign_writes(client, home / "workflow-runs",
                                                       3 if cfg_smoke else 8)
        out["rss_after_kb"] = rss_kb(client.pid)
    finally:
        await client.stop()
    return out


async def foreign_writes(client: HistoryClient, runs: Path, count: int) -> dict[str, float]:
    """Run files written here (another process than the server), as a runner writes them
    (temp file, os.replace) → the hwf/runsChanged that names each."""
    import random

    rng = random.Random(5)
    latencies = []
    for i in range(count):
        await asyncio.sleep(0.3 + rng.random() * 0.3)
        run_id = f"fe{i:02d}{rng.getrandbits(40):010x}"
        state = run_state(run_id, DESIGN, time.time(), rng)
        tmp = runs / f".tmp-{run_id}.json"
        tmp.write_text(json.dumps(state, indent=1))
        seen_before = len(client.runs_changed)
        written = time.perf_counter()
        os.replace(tmp, runs / f"{run_id}.json")
        deadline = written + 10
        arrived = None
        while arrived is None and time.perf_counter() < deadline:
            for at, params in client.runs_changed[seen_before:]:
                listed = (params.get("changed") or []) + (params.get("runs") or [])
                if any(run.get("run_id") == run_id for run in listed):
                    arrived = at
                    break
            await asyncio.sleep(0.002)
        latencies.append(1000 * ((arrived or deadline) - written))
    for path in runs.glob("fe*.json"):
        path.unlink()
    return {"median": statistics.median(latencies), "max": max(latencies), "n": len(latencies)}


async def keystrokes_rss(workspace: Path, home: Path, smoke: bool) -> dict[str, Any]:
    """RSS after 1,000 and after 100,000 keystrokes in one design (0 runs)."""
    first, total = (200, 2_000) if smoke else (1_000, 100_000)
    client, uri, text = await start_server(home, workspace)
    at = text.index("Draft the report") + 1
    line = text.count("\n", 0, at)
    character = at - (text.rfind("\n", 0, at) + 1)
    rss = {}
    try:
        await client.wait_publish(uri, 1, 0, WAIT_S)
        version = 1
        for target in (first, total):
            while version - 1 < target:
                version += 1
                await client.notify("textDocument/didChange", {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"range": {
                        "start": {"line": line, "character": character},
                        "end": {"line": line, "character": character + 1}},
                        "text": "xy"[version % 2]}]})
                if version % 200 == 0:
                    await client.wait_publish(uri, version, 0, WAIT_S)
            await client.wait_publish(uri, version, 0, WAIT_S)
            await asyncio.sleep(0.5)
            rss[target] = rss_kb(client.pid)
    finally:
        await client.stop()
    return {"after": {str(k): v for k, v in rss.items()},
            "ratio": rss[total] / rss[first] if rss.get(first) else None,
            "keystrokes": [first, total]}


def watching_capabilities() -> dict[str, Any]:
    """The bench client's capabilities plus file watching, as VS Code has it (the server
    registers its watcher; this client accepts every registration)."""
    caps = client_capabilities({})
    caps["workspace"]["didChangeWatchedFiles"] = {"dynamicRegistration": True}
    return caps


async def workspace_symbols(base: Path, home: Path, smoke: bool) -> dict[str, Any]:
    count = 400 if smoke else 4_000
    folder = base / f"symbols-{count}"
    if not folder.exists():
        for i in range(count):
            team = folder / f"team{i % 40}"
            team.mkdir(parents=True, exist_ok=True)
            nodes = [{"id": "start", "type": "trigger"}] + [
                {"id": f"{step}_{i}", "type": "agent", "prompt": "p", "after": ["start"]}
                for step in ("fetch", "draft", "review")]
            (team / f"d{i}.hwf.json").write_text(json.dumps({"name": f"d{i}", "nodes": nodes}))
    client = HistoryClient([python(), "-m", "hwf_lsp"], cwd=str(folder),
                           env={"HERMES_HOME": str(home)})
    await client.start()
    out: dict[str, Any] = {"designs": count}
    try:
        await client.request("initialize", {
            "processId": None, "rootUri": folder.as_uri(),
            "workspaceFolders": [{"uri": folder.as_uri(), "name": "ws"}],
            "capabilities": watching_capabilities()}, timeout=WAIT_S)
        await client.notify("initialized", {})
        await asyncio.sleep(0.5)  # the watcher's registration
        started = time.perf_counter()
        await client.request("workspace/symbol", {"query": ""}, timeout=WAIT_S)
        out["first_ms"] = 1000 * (time.perf_counter() - started)
        for query in ("nomatchatall", "review_12"):
            samples = []
            for _ in range(10):
                started = time.perf_counter()
                await client.request("workspace/symbol", {"query": query}, timeout=WAIT_S)
                samples.append(time.perf_counter() - started)
            out[f"{query}_ms"] = 1000 * statistics.median(samples)
    finally:
        await client.stop()
    return out


def compile_package() -> bool:
    """Byte-compile hwf_lsp, as installing the wheel does (pip compiles on install): an
    editable checkout under PYTHONDONTWRITEBYTECODE=1 compiles its ~60 modules again at
    every spawn (~0.2 s of CPU, ~15 % of a start-up), which no installed server pays."""
    import compileall

    import hwf_lsp

    return bool(compileall.compile_dir(Path(hwf_lsp.__file__).parent, quiet=1))


async def measure(out: Path, smoke: bool, log: Any = print) -> dict[str, Any]:
    compiled = compile_package()
    load_at_start = os.getloadavg()[0]
    base = out / "history"
    cache = out / "history-cache"
    base.mkdir(parents=True, exist_ok=True)
    workspace = base / "ws"
    workspace.mkdir(exist_ok=True)
    (workspace / f"{DESIGN}.hwf.json").write_text(design_text())
    counts = SMOKE_COUNTS if smoke else COUNTS
    samples = 2 if smoke else 7
    empty = prepare_home(base, cache, 0, name="home-reference")
    rows: list[dict[str, Any]] = []
    for count in counts:
        log(f"  history: {count} runs")
        home = prepare_home(base, cache, count)
        row: dict[str, Any] = {"runs": count}
        row["cold_first_listing_s"] = hwf_runs_s(home)  # no index yet
        row["index_build_s"] = build_index(home)
        if count:
            row["interrupted_rebuild"] = interrupted_rebuild_is_harmless(
                home, min(1.0, 0.2 + row["index_build_s"] / 3)) if count <= 10_000 else None
            build_index(home)
        hwf_runs = [hwf_runs_s(home) for _ in range(3 if smoke else 7)]
        row["hwf_runs_s"] = statistics.median(hwf_runs)
        sessions, reference = [], []
        for _ in range(samples):  # alternated with the 0-run server: the ratio is of one moment
            sessions.append(await server_sample(home, workspace, bool(count)))
            reference.append(await server_sample(empty, workspace, False))
        row["first_diagnostics_s"] = statistics.median(s["first_diagnostics_s"] for s in sessions)
        row["first_diagnostics_ref_s"] = statistics.median(
            s["first_diagnostics_s"] for s in reference)
        aware = [s["run_aware_completion_s"] for s in sessions]
        row["run_aware_completion_s"] = None if None in aware else statistics.median(aware)
        after = [s["aware_after_first_s"] for s in sessions]
        row["aware_after_first_s"] = None if None in after else statistics.median(after)
        row.update(await settled_server(home, workspace, smoke))
        rows.append(row)
    log("  history: keystrokes")
    empty = prepare_home(base, cache, 0)
    keystrokes = await keystrokes_rss(workspace, empty, smoke)
    log("  history: workspace symbols")
    symbols = await workspace_symbols(base, empty, smoke)
    result = {"rows": rows, "keystrokes": keystrokes, "workspace_symbols": symbols,
              "compiled": compiled,
              "load": {"start": load_at_start, "end": os.getloadavg()[0]}}
    result["ratios"] = ratios(rows)
    result["targets"] = verdicts(result)
    return result


def ratios(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    base = rows[0]

    def ratio(row: dict[str, Any], key: str) -> float | None:
        return row[key] / base[key] if base.get(key) and row.get(key) is not None else None

    def first_ratio(row: dict[str, Any]) -> float | None:
        reference = row.get("first_diagnostics_ref_s")
        return row["first_diagnostics_s"] / reference if reference else None

    return [{"runs": row["runs"], "first_diagnostics": first_ratio(row),
             "rss": ratio(row, "rss_kb"), "hwf_runs": ratio(row, "hwf_runs_s")} for row in rows]


def verdicts(result: dict[str, Any]) -> list[dict[str, Any]]:
    """One line per target: the measured value at the largest history, and whether it holds."""
    rows, ratio_rows = result["rows"], result["ratios"]
    top, top_ratio = rows[-1], ratio_rows[-1]
    checks = [
        ("idle CPU (% of a core)", top.get("idle_cpu_pct"), TARGETS["idle_cpu_pct"]),
        ("spawn → first diagnostics (× 0 runs)", top_ratio["first_diagnostics"],
         TARGETS["first_diagnostics_ratio"]),
        ("run-aware completion after start (s)", top.get("run_aware_completion_s"),
         TARGETS["run_aware_completion_s"]),
        ("RSS (× 0 runs)", top_ratio["rss"], TARGETS["rss_ratio"]),
        ("`hwf runs` default page (× 0 runs)", top_ratio["hwf_runs"], TARGETS["hwf_runs_ratio"]),
        ("hwf.listRuns (ms)", top.get("list_runs_ms"), TARGETS["list_runs_ms"]),
        ("foreign run write → editor (ms, max)", (top.get("foreign_write_ms") or {}).get("max"),
         TARGETS["foreign_write_ms"]),
        ("cold boot: first listing (s)", top.get("cold_first_listing_s"),
         TARGETS["cold_first_listing_s"]),
        ("RSS after 100k keystrokes (× after 1k)", result["keystrokes"].get("ratio"),
         TARGETS["keystroke_rss_ratio"]),
        ("workspace symbols, no match (ms)",
         result["workspace_symbols"].get("nomatchatall_ms"), TARGETS["workspace_symbols_ms"]),
    ]
    out = [{"target": name, "runs": top["runs"], "measured": value, "limit": limit,
            "met": value is not None and value <= limit} for name, value, limit in checks]
    harmless = [r["interrupted_rebuild"]["listing_equals_files"] for r in rows
                if r.get("interrupted_rebuild")]
    out.append({"target": "interrupted index rebuild leaves the listing right", "runs": None,
                "measured": all(harmless) if harmless else None, "limit": True,
                "met": bool(harmless) and all(harmless)})
    return out


def _fmt(value: Any, digits: int = 2) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "NO"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def markdown(result: dict[str, Any]) -> str:
    lines = ["", "## Run history", "",
             "Same server and CLI, runs on disk from bench/history_gen.py (~4 KB each, 26 "
             "designs, mtimes over 90 days); ratios to the 0-run figures of this run (spawn → first "
             "diagnostics: to a 0-run server spawned alternately with it). "
             f"Load average (1 min) at start / end: {_fmt(result.get('load', {}).get('start'))}"
             f" / {_fmt(result.get('load', {}).get('end'))}; hwf_lsp byte-compiled first: "
             f"{_fmt(result.get('compiled'))}.", "",
             "| runs | idle CPU % | spawn → first diagnostics | spawn → run-aware completion (after "
             "first diagnostics) | RSS | "
             "`hwf runs` | `hwf.listRuns` | foreign write → editor (median / max) | cold first "
             "listing | index build |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for row, ratio in zip(result["rows"], result["ratios"], strict=True):
        write = row.get("foreign_write_ms") or {}
        lines.append(
            f"| {row['runs']:,} | {_fmt(row.get('idle_cpu_pct'))} | "
            f"{_fmt(row['first_diagnostics_s'] * 1000, 0)} ms ({_fmt(ratio['first_diagnostics'])}×)"
            f" | {_fmt(row.get('run_aware_completion_s'))} s (+{_fmt(row.get('aware_after_first_s'))}"
            " s) | "
            f"{_fmt((row.get('rss_kb') or 0) / 1024, 1)} MiB ({_fmt(ratio['rss'])}×) | "
            f"{_fmt(row['hwf_runs_s'] * 1000, 0)} ms ({_fmt(ratio['hwf_runs'])}×) | "
            f"{_fmt(row.get('list_runs_ms'), 1)} ms | {_fmt(write.get('median'), 0)} / "
            f"{_fmt(write.get('max'), 0)} ms | {_fmt(row['cold_first_listing_s'])} s | "
            f"{_fmt(row['index_build_s'])} s |")
    keys = result["keystrokes"]
    symbols = result["workspace_symbols"]
    lines += ["", f"RSS after {keys['keystrokes'][0]:,} keystrokes: "
              f"{_fmt((keys['after'].get(str(keys['keystrokes'][0])) or 0) / 1024, 1)} MiB; after "
              f"{keys['keystrokes'][1]:,}: "
              f"{_fmt((keys['after'].get(str(keys['keystrokes'][1])) or 0) / 1024, 1)} MiB "
              f"({_fmt(keys.get('ratio'), 3)}×).",
              f"Workspace symbols at {symbols['designs']:,} designs: first query (walk + read) "
              f"{_fmt(symbols.get('first_ms'), 0)} ms; no match {_fmt(symbols.get('nomatchatall_ms'), 1)}"
              f" ms; `review_12` {_fmt(symbols.get('review_12_ms'), 1)} ms (medians of 10).",
              "", "| target | measured | limit | met |", "|---|---|---|---|"]
    for verdict in result["targets"]:
        lines.append(f"| {verdict['target']} | {_fmt(verdict['measured'])} | "
                     f"{_fmt(verdict['limit'])} | {'yes' if verdict['met'] else '**no**'} |")
    return "\n".join(lines) + "\n"


def main_only(out: Path, smoke: bool, log: Any, section: Any = None, stem: str = "history"
              ) -> str:
    """`python -m bench --only <section>`: one section alone (this one by default), to
    `<stem>.json` and `<STEM>.md` (history.json/HISTORY.md)."""
    section = section or sys.modules[__name__]
    result = asyncio.run(section.measure(out, smoke, log))
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{stem}.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    text = section.markdown(result)
    (out / f"{stem.upper()}.md").write_text(text, encoding="utf-8")
    return text
