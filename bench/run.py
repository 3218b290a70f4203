"""Run every measurement side by side and write bench/results/{REPORT.md,results.json,growth.png}.

    python -m bench            # full run (make bench)
    python -m bench --smoke    # smallest documents, few samples (CI, make bench-smoke)

The servers under test stay up for the whole run.  They take turns document by document, and
on each didChange workload sample by sample, so a ratio compares samples taken milliseconds
apart on the same machine, never across runs.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench import engine, history, profiles, report, workspace_scale
from bench.gen import Doc, all_docs, design_with_nodes, write_docs
from bench.lsp_client import LspError
from bench.scenarios import (
    Session,
    cold_start_once,
    import_pygls_once,
    measure_change_in_turns,
    measure_open,
    measure_request_after_edit,
    measure_request_in_turns,
    peak_rss_after,
    start_session,
    sync_kind,
    typing_test,
)
from bench.servers import (
    REPO,
    ServerSpec,
    floor_spec,
    hwf_lsp_spec,
    peer_specs,
    python_of_venv,
    schema_path,
)
from bench.stats import median

DEFAULT_OUT = REPO / "bench" / "results"


@dataclass(frozen=True, slots=True)
class Config:
    smoke: bool
    samples: int
    warmup: int
    request_samples: int
    keystrokes: int
    cold_starts: int
    profile: bool
    out: Path


def config_from(args: argparse.Namespace) -> Config:
    smoke = args.smoke
    samples = args.samples or (3 if smoke else 50)
    return Config(
        smoke=smoke,
        samples=samples,
        warmup=1 if smoke else 3,
        request_samples=args.samples or (10 if smoke else 100),
        keystrokes=30 if smoke else 200,
        cold_starts=2 if smoke else 12,
        profile=not smoke and not args.no_profile,
        out=Path(args.out),
    )


# --- the LSP part -----------------------------------------------------------------


async def detect_sync(spec: ServerSpec, root: Path) -> int:
    """The text sync kind hwf-lsp advertises (the floor copies it); incremental if unknown."""
    if not spec.available:
        return 2
    client, result = await start_session(spec, root)
    await client.stop()
    return sync_kind(result)


def offers(result: dict[str, Any], capability: str) -> bool:
    """Whether the initialize result offers `capability`: `true` or an options object (an
    empty one too: `completionProvider: {}` is a completion provider)."""
    value = (result or {}).get("capabilities", {}).get(capability)
    return value is True or isinstance(value, dict)


async def measure_changes(opened: list[tuple[Session, str, dict[str, Any]]], doc: Doc,
                          cfg: Config, rows: list[dict[str, Any]]) -> None:
    """Every didChange workload (report.CHANGES; the push peer only report.PUSH_PEER_OPS),
    the servers taking turns sample by sample (scenarios.measure_change_in_turns), each
    workload undone after it, so that the next one and the requests measured next see the
    document as opened.  The prompt and id rows keep a sample of what each server said
    (after the id keystroke: the messages naming the edited node, if any)."""
    for change in report.CHANGES:
        group = [(session, uri, base) for session, uri, base in opened
                 if session.spec.name != report.PEER or change.op in report.PUSH_PEER_OPS]
        measured = await measure_change_in_turns(
            [(session, uri) for session, uri, _ in group], doc, cfg.samples, cfg.warmup,
            change.edit, change.full)
        offset = doc.offset_of(change.edit)
        for (session, uri, base), row in zip(group, measured, strict=True):
            rows.append({**base, "op": change.op, **row})
            client = session.client
            if change.op in report.PUSH_PEER_OPS and client.publishes:
                named = [str(d.get("message", ""))[:120]
                         for d in client.latest_diagnostics.get(uri, [])
                         if change.edit == "id" and any(
                             node_id in str(d.get("message", "")) for node_id in doc.edited_ids)]
                rows[-1]["sample"] = named[:4] or list(client.publishes[-1].sample)
            with contextlib.suppress(LspError, TimeoutError):
                await session.change(uri, offset, doc.text[offset])


async def measure_servers(specs: list[ServerSpec], docs: list[Doc], root: Path,
                          cfg: Config, log: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Open/change/completion/hover rows for every server and document, then the typing test."""
    sessions: list[tuple[Session, dict[str, Any]]] = []
    for spec in specs:
        if not spec.available:
            continue
        try:
            client, result = await start_session(spec, root)
        except (LspError, OSError, TimeoutError) as exc:
            spec.available, spec.note = False, f"did not start: {exc}"[:300]
            continue
        sessions.append((Session(spec, client, sync_kind(result)), result))
    rows: list[dict[str, Any]] = []
    typing: dict[str, Any] = {}
    try:
        for doc in docs:
            opened: list[tuple[Session, str, dict[str, Any]]] = []
            for session, _ in sessions:
                log(f"  {doc.name:12} {session.spec.name:10} open")
                base = {"server": session.spec.name, "doc": doc.name, "bytes": doc.size,
                        "nodes": doc.nodes}
                rows.append({**base, "op": "open",
                             **await measure_open(session, doc, root, cfg.samples, cfg.warmup)})
                uri = (root / doc.filename).as_uri()
                with contextlib.suppress(LspError, TimeoutError):
                    await session.open(uri, doc.text)
                opened.append((session, uri, base))
            log(f"  {doc.name:12} changes, in turns")
            await measure_changes(opened, doc, cfg, rows)
            for op, capability, offset in (
                ("completion", "completionProvider", doc.completion_offset),
                ("hover", "hoverProvider", doc.hover_offset),
            ):
                asked = [(session, uri, base) for (session, init), (_, uri, base)
                         in zip(sessions, opened, strict=True)
                         if session.spec.name != "peer-pull" and offers(init, capability)]
                log(f"  {doc.name:12} {op}, in turns")
                measured = await measure_request_in_turns(
                    [(session, uri) for session, uri, _ in asked], f"textDocument/{op}",
                    offset, cfg.request_samples, cfg.warmup)
                for (session, uri, base), result in zip(asked, measured, strict=True):
                    rows.append({**base, "op": op, **result})
                    rows.append({**base, "op": f"{op}-after-edit",
                                 **await measure_request_after_edit(
                                     session, f"textDocument/{op}", doc, uri, offset,
                                     cfg.samples, cfg.warmup)})
            for session, uri, _ in opened:
                await session.close(uri)
        typing_doc = design_with_nodes(50)
        for session, _ in sessions:
            log(f"  typing     {session.spec.name}")
            typing[session.spec.name] = await typing_test(
                session, typing_doc, root, cfg.keystrokes, 0.010, 0.3 if cfg.smoke else 1.0)
    finally:
        for session, _ in sessions:
            with contextlib.suppress(Exception):
                await session.client.stop()
    return rows, typing


async def measure_cold_start(specs: list[ServerSpec], root: Path, cfg: Config,
                             python: str) -> dict[str, Any]:
    """Spawn → initialize result and spawn → first diagnostics of an example opened right
    after, interleaved with the `import pygls.lsp.server` baseline."""
    text = (Path(__file__).resolve().parents[1] / "examples" / "review-flow.hwf.json").read_text(
        encoding="utf-8")
    timings: dict[str, list[float]] = {"import pygls.lsp.server": []}
    first: dict[str, list[float]] = {}
    runnable = [s for s in specs if s.available and s.name != "peer-pull"]
    for _ in range(cfg.cold_starts):
        timings["import pygls.lsp.server"].append(await import_pygls_once(python))
        for spec in runnable:
            with contextlib.suppress(LspError, TimeoutError, asyncio.TimeoutError):
                to_initialize, to_diagnostics = await cold_start_once(spec, root, text)
                timings.setdefault(spec.name, []).append(to_initialize)
                if to_diagnostics is not None:
                    first.setdefault(spec.name, []).append(to_diagnostics)
    base = median(timings["import pygls.lsp.server"])

    def ratio(values: list[float]) -> float | None:
        return round(median(values) / base, 3) if base else None

    return {
        name: {"n": len(values), "median_ms": round(median(values) * 1000, 1),
               "ratio_to_import_pygls": ratio(values),
               **({"first_diagnostics_ms": round(median(first[name]) * 1000, 1),
                   "first_diagnostics_ratio": ratio(first[name])} if first.get(name) else {})}
        for name, values in timings.items() if values
    }


async def measure_rss(specs: list[ServerSpec], doc: Doc, root: Path) -> dict[str, Any]:
    out: dict[str, Any] = {"doc": doc.name, "bytes": doc.size}
    for spec in specs:
        if spec.available and spec.name != "peer-pull":
            out[spec.name] = await peak_rss_after(spec, doc, root)
    return out


# --- whole run -------------------------------------------------------------------------


def versions(python: str) -> dict[str, Any]:
    def version_of(argv: list[str]) -> str | None:
        try:
            return subprocess.run(argv, capture_output=True, text=True, timeout=30).stdout.strip()
        except OSError:
            return None

    return {
        "python": platform.python_version(),
        "pygls": version_of([python, "-c", "import importlib.metadata as m;"
                             "print(m.version('pygls'))"]),
        "node": version_of([shutil.which("node") or "node", "--version"]),
        "peer_package": "vscode-langservers-extracted "
        + json.loads((REPO / "bench" / "peer" / "package.json").read_text())
        ["dependencies"]["vscode-langservers-extracted"],
        "machine": f"{platform.machine()} {os.cpu_count()} cpu, {platform.system()}",
    }


async def run(cfg: Config, log: Any = print) -> dict[str, Any]:
    python = python_of_venv()
    out = cfg.out
    out.mkdir(parents=True, exist_ok=True)
    root = out / "designs"
    if root.exists():
        shutil.rmtree(root)
    for stale in out.glob("profile-*"):  # a profile belongs to the run that missed its target
        stale.unlink()
    docs = all_docs(smoke=cfg.smoke)
    write_docs(docs, root)
    started = time.perf_counter()

    hwf = hwf_lsp_spec(python)
    log("detecting hwf-lsp text sync kind")
    sync = await detect_sync(hwf, root)
    schema, schema_note = schema_path(python, out / "schema")
    specs = [hwf, floor_spec(python, "incremental" if sync == 2 else "full"),
             *peer_specs(schema, schema_note)]

    phases: dict[str, float] = {}
    mark = time.perf_counter()

    def phase(name: str) -> None:
        """Seconds of the phase that just ended, so the run's length can be planned."""
        nonlocal mark
        now = time.perf_counter()
        phases[name] = round(now - mark, 1)
        mark = now

    log("diagnostics, completion, hover, typing")
    rows, typing = await measure_servers(specs, docs, root, cfg, log)
    phase("latency_and_typing")
    log("cold start")
    cold = await measure_cold_start(specs, root, cfg, python)
    phase("cold_start")
    log("peak RSS")
    rss = await measure_rss(specs, max(docs, key=lambda d: d.size), root)
    phase("rss")
    log("engine")
    eng = engine.measure_engine(json.loads(design_with_nodes(50).text), cfg.smoke)
    phase("engine")
    log("run history")
    runs_history = await history.measure(out, cfg.smoke, log)
    phase("history")
    log("workspace scale")
    workspace = await workspace_scale.measure(out, cfg.smoke, log)
    phase("workspace")

    results: dict[str, Any] = {
        "meta": {
            "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "smoke": cfg.smoke,
            "samples": cfg.samples,
            "request_samples": cfg.request_samples,
            "text_sync": {1: "full", 2: "incremental"}.get(sync, str(sync)),
            **versions(python),
        },
        "servers": {s.name: {"available": s.available, "diagnostics": s.diagnostics,
                             "note": s.note, "argv": s.argv} for s in specs},
        "documents": [{"name": d.name, "bytes": d.size, "nodes": d.nodes} for d in docs],
        "latency": rows,
        "typing": typing,
        "cold_start": cold,
        "rss_after_largest": rss,
        "engine": eng,
        "history": runs_history,
        "workspace": workspace,
    }
    results["ratios"] = report.ratios(rows)
    results["growth"] = report.growth(rows)
    results["targets"] = report.targets(results)
    if cfg.profile:
        log("profiles of missed targets")
        results["profiles"] = await profiles.profile_missed(results, specs[0], docs, root, out)
        phase("profiles")
    results["meta"]["seconds"] = round(time.perf_counter() - started, 1)
    results["meta"]["phase_seconds"] = phases
    return results


def write_outputs(results: dict[str, Any], out: Path) -> str:
    results["meta"]["plot"] = report.plot(results, out / "growth.png")
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    markdown = report.markdown(results)
    if results.get("history"):
        markdown += history.markdown(results["history"])
    if results.get("workspace"):
        markdown += workspace_scale.markdown(results["workspace"])
    (out / "REPORT.md").write_text(markdown, encoding="utf-8")
    return markdown


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true", help="smallest sizes, few samples")
    parser.add_argument("--samples", type=int, default=0, help="samples per latency (>= 50)")
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="results directory")
    parser.add_argument("--no-profile", action="store_true", help="skip profiles of misses")
    parser.add_argument("--only", choices=("history", "workspace"), help="one section alone")
    parsed = parser.parse_args(argv)
    cfg = config_from(parsed)

    def log(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    if parsed.only == "history":
        print(history.main_only(cfg.out, cfg.smoke, log))
        return 0
    if parsed.only == "workspace":
        print(history.main_only(cfg.out, cfg.smoke, log, workspace_scale, "workspace"))
        return 0
    results = asyncio.run(run(cfg, log))
    print(write_outputs(results, cfg.out))
    return 0
