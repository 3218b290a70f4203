"""The workspace-scale section (issue 47): the server in a workspace of 0, 1,000 and 5,000
designs (smoke: 0, 100, 300), with design test files and other JSON beside them.

For each size, one server (`python -m hwf_lsp`, a client with VS Code's file watching):
- start-up: spawn → the `initialize` answer; RSS and idle CPU (/proc) once settled, RSS
  again once the symbol index is built;
- a keystroke alone: didChange → publishDiagnostics of that version (median);
- the first `workspace/symbol` query, and a keystroke every 5 ms while it runs: their
  diagnostics (median, max) against the keystroke alone (target: median ≤ 3×);
- later queries (median of 10);
- the globs the server asked to watch, and a burst of 100 watched-file events → the next
  query's answer.

    python -m bench --only workspace [--smoke]    # this section alone: WORKSPACE.md
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Any

from bench.history import cpu_s, python, rss_kb, watching_capabilities
from bench.lsp_client import LspClient

COUNTS = (0, 1_000, 5_000)
SMOKE_COUNTS = (0, 100, 300)
WAIT_S = 120.0
KEYSTROKE_RATIO = 3.0
EVENTS = 100


class WatchingClient(LspClient):
    """The bench client, recording what the server asks it to watch."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.watched: list[str] = []

    async def _dispatch(self, message: dict[str, Any], arrived: float) -> None:
        if message.get("method") == "client/registerCapability":
            for registration in (message.get("params") or {}).get("registrations") or []:
                options = registration.get("registerOptions") or {}
                self.watched += [w.get("globPattern") for w in options.get("watchers") or []]
        await super()._dispatch(message, arrived)


def design(i: int) -> str:
    nodes = [{"id": "start", "type": "trigger"}] + [
        {"id": f"{step}_{i}", "type": "agent", "prompt": "p", "after": ["start"]}
        for step in ("fetch", "draft", "review")]
    return json.dumps({"name": f"d{i}", "nodes": nodes}, indent=2)


def workspace(cache: Path, count: int) -> Path:
    """`count` designs in 40 team folders, a test file per 10 designs, a package.json per
    team (JSON the server must not watch); generated once per size."""
    folder = cache / f"designs-{count}"
    done = folder / ".complete"
    if done.exists():
        return folder
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "open.hwf.json").write_text(design(-1))
    for i in range(count):
        team = folder / f"team{i % 40}"
        team.mkdir(exist_ok=True)
        (team / f"d{i}.hwf.json").write_text(design(i))
        (team / "package.json").write_text("{}")
        if i % 10 == 0:
            (team / f"d{i}.hwf-test.json").write_text(json.dumps(
                {"design": f"d{i}.hwf.json", "cases": [{"name": "c", "agents": {}}]}))
    done.write_text("")
    return folder


async def keystroke_s(client: LspClient, uri: str, version: int, offset: int) -> float:
    sent = await client.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": version},
        "contentChanges": [{"range": {"start": {"line": 1, "character": offset},
                                      "end": {"line": 1, "character": offset + 1}},
                            "text": "xy"[version % 2]}]})
    publish = await client.wait_publish(uri, version, 0, WAIT_S)
    return publish.at - sent


async def one_size(cache: Path, count: int, smoke: bool) -> dict[str, Any]:
    folder = workspace(cache, count)
    home = cache / "home"
    home.mkdir(exist_ok=True)
    client = WatchingClient([python(), "-m", "hwf_lsp"], cwd=str(folder),
                            env={"HERMES_HOME": str(home)})
    await client.start()
    row: dict[str, Any] = {"designs": count}
    try:
        started = time.perf_counter()
        await client.request("initialize", {
            "processId": None, "rootUri": folder.as_uri(),
            "workspaceFolders": [{"uri": folder.as_uri(), "name": "ws"}],
            "capabilities": watching_capabilities()}, timeout=WAIT_S)
        row["startup_s"] = time.perf_counter() - started
        await client.notify("initialized", {})
        await asyncio.sleep(1.0)
        before, since = cpu_s(client.pid), time.perf_counter()
        await asyncio.sleep(1.0 if smoke else 5.0)
        row["idle_cpu_pct"] = 100 * (cpu_s(client.pid) - before) / (time.perf_counter() - since)
        row["rss_mb"] = (rss_kb(client.pid) or 0) / 1024
        row["watched"] = list(client.watched)

        path = folder / "open.hwf.json"
        uri, text = path.as_uri(), path.read_text()
        await client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "json", "version": 1, "text": text}})
        await client.wait_publish(uri, 1, 0, WAIT_S)
        offset = text.splitlines()[1].index('"d') + 2  # inside the design's name
        version = 1
        alone = []
        for _ in range(5 if smoke else 20):
            version += 1
            alone.append(await keystroke_s(client, uri, version, offset))
        row["keystroke_alone_ms"] = 1000 * statistics.median(alone)

        query = asyncio.ensure_future(client.timed_request(
            "workspace/symbol", {"query": ""}, timeout=WAIT_S))
        during = []
        while not during or not query.done():  # a keystroke every 5 ms until it answers
            await asyncio.sleep(0.005)
            version += 1
            during.append(await keystroke_s(client, uri, version, offset))
        _, first = await query
        row["first_query_ms"] = 1000 * first
        row["keystrokes_during_first"] = len(during)
        row["keystroke_during_first_ms"] = 1000 * statistics.median(during)
        row["keystroke_during_first_max_ms"] = 1000 * max(during)
        later = []
        for _ in range(10):
            _, took = await client.timed_request("workspace/symbol", {"query": "review_1"},
                                                 timeout=WAIT_S)
            later.append(took)
        row["later_query_ms"] = 1000 * statistics.median(later)
        row["rss_indexed_mb"] = (rss_kb(client.pid) or 0) / 1024
        row["keystroke_ratio"] = row["keystroke_during_first_ms"] / row["keystroke_alone_ms"]

        changes = [{"uri": (folder / f"team{i % 40}" / f"d{i}.hwf.json").as_uri(), "type": 2}
                   for i in range(min(EVENTS, count))]
        sent = await client.notify("workspace/didChangeWatchedFiles", {"changes": changes})
        await client.request("workspace/symbol", {"query": "review_1"}, timeout=WAIT_S)
        row["events_then_query_ms"] = 1000 * (time.perf_counter() - sent)
        row["events"] = len(changes)
    finally:
        await client.stop()
    return row


async def measure(out: Path, smoke: bool, log: Any = print) -> dict[str, Any]:
    cache = out / "workspace-cache"
    cache.mkdir(parents=True, exist_ok=True)
    rows = []
    for count in SMOKE_COUNTS if smoke else COUNTS:
        log(f"  workspace: {count} designs")
        rows.append(await one_size(cache, count, smoke))
    worst = max(row["keystroke_ratio"] for row in rows)
    return {"rows": rows, "targets": [{
        "target": f"a keystroke during the first workspace/symbol ≤ {KEYSTROKE_RATIO:g}× alone",
        "value": worst, "met": worst <= KEYSTROKE_RATIO}]}


def markdown(result: dict[str, Any]) -> str:
    lines = ["", "## Workspace scale (designs in the workspace folders)", "",
             "| designs | start-up | idle CPU % | RSS MB (idle / indexed) | keystroke alone | keystroke during "
             "the first symbol query (median / max) | ratio | first query | later query | 100 file events → "
             "query |",
             "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in result["rows"]:
        lines.append(
            f"| {r['designs']:,} | {r['startup_s'] * 1000:.0f} ms | {r['idle_cpu_pct']:.2f} | "
            f"{r['rss_mb']:.0f} / {r.get('rss_indexed_mb', 0):.0f} | {r['keystroke_alone_ms']:.1f} ms | "
            f"{r['keystroke_during_first_ms']:.1f} / {r['keystroke_during_first_max_ms']:.1f} ms "
            f"({r['keystrokes_during_first']}) | {r['keystroke_ratio']:.2f}× | "
            f"{r['first_query_ms']:.0f} ms | {r['later_query_ms']:.1f} ms | "
            f"{r['events_then_query_ms']:.0f} ms |")
    watched = result["rows"][0]["watched"] if result["rows"] else []
    lines += ["", f"Watched: {', '.join(f'`{g}`' for g in watched) or 'nothing'}.", ""]
    for target in result["targets"]:
        verdict = "met" if target["met"] else "**missed**"
        lines.append(f"- {target['target']}: {target['value']:.2f}× ({verdict})")
    return "\n".join(lines) + "\n"

