"""Profiles (pyinstrument) of the slow path behind every missed target, for whoever fixes it.

The server is profiled as a whole process (`python -m pyinstrument -m hwf_lsp`) while the
bench replays the workload of the missed target against it; the session is saved, rendered
as text next to the results, and its hottest functions (self time, our code first) are named.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.gen import Doc, replace_char
from bench.lsp_client import LspError
from bench.report import (
    CHANGE_OPS,
    CHANGES,
    FLOOR,
    TARGET_SIZES,
    change_ratio_holds,
)
from bench.scenarios import (
    Session,
    measure_change,
    measure_request,
    measure_request_after_edit,
    start_session,
    sync_kind,
)
from bench.servers import REPO, ServerSpec
from bench.stats import median

HOT_COUNT = 8
SLOW_REQUEST_MS = 100.0
"""A request this slow (p50) gets a profile even though no target names its document."""


IMPORT_FRAMES = ("_find_and_load", "_call_with_frames_removed", "import_module")
IDLE_FRAMES = ("select", "epoll.poll", "poll", "wait", "[await]")
"""Subtrees where a thread waits for input: left out of every ranking."""


def hot_in_our_code(session_path: Path, count: int = HOT_COUNT,
                    by_leaf: bool = False) -> list[dict[str, Any]]:
    """Time by the nearest hwf_lsp function on the stack (library calls charged to their caller),
    or with `by_leaf` by the function actually running (any code: json, cattrs, ...).

    Import-time frames and idle waits are left out: the question is what an edit costs.
    """
    from pyinstrument.session import Session as ProfileSession

    root = ProfileSession.load(str(session_path)).root_frame()
    totals: dict[tuple[str, str], float] = defaultdict(float)
    leaves: dict[tuple[str, str], float] = defaultdict(float)
    stack: list[tuple[Any, tuple[str, str] | None, tuple[str, str]]] = (
        [(root, None, ("?", "?"))] if root is not None else [])
    while stack:
        frame, owner, parent = stack.pop()
        name = frame.function or "?"
        here = (name, f"{frame.file_path_short}:{frame.line_no}")
        if frame.is_synthetic:  # "[self]" and friends: time of the function above
            here = parent
        if name in IMPORT_FRAMES or name in IDLE_FRAMES:
            continue  # an import (start-up, not the cost of an edit) or an idle wait
        if "hwf_lsp" in (frame.file_path or "") and not frame.is_synthetic:
            owner = here
        own = frame.time - sum(child.time for child in frame.children)
        if owner is not None and own > 0:
            totals[owner] += own
        if own > 0:
            leaves[here] += own
        stack.extend((child, owner, here) for child in frame.children)
    ranked = sorted((leaves if by_leaf else totals).items(), key=lambda item: -item[1])
    return [{"function": fn, "where": where, "seconds": round(t, 4)}
            for (fn, where), t in ranked[:count]]


def render(session_path: Path, text_path: Path) -> None:
    from pyinstrument.renderers import ConsoleRenderer
    from pyinstrument.session import Session as ProfileSession

    session = ProfileSession.load(str(session_path))
    text = ConsoleRenderer(unicode=False, color=False, show_all=False).render(session)
    text_path.write_text(text, encoding="utf-8")


def _shown(path: Path) -> str:
    """A path relative to the repository when it is inside it."""
    try:
        return str(path.resolve().relative_to(REPO))
    except ValueError:
        return str(path)


def _summarise(target: str, session_path: Path, out: Path) -> dict[str, Any]:
    text_path = session_path.with_suffix(".txt")
    render(session_path, text_path)
    hot = hot_in_our_code(session_path)
    leaves = hot_in_our_code(session_path, by_leaf=True)
    return {
        "target": target,
        "file": _shown(text_path),
        "hot_functions": hot,
        "hot_leaves": leaves,
        "hot": "ours: " + ", ".join(f"{h['function']} ({h['where']}, {h['seconds']} s)"
                                   for h in hot[:6])
        + "; running: " + ", ".join(f"{h['function']} ({h['where']}, {h['seconds']} s)"
                                   for h in leaves[:4]),
    }


async def _profiled_server(spec: ServerSpec, session_path: Path, root: Path,
                           work: Any) -> None:
    """Run `work(session)` against hwf-lsp started under pyinstrument, then stop it cleanly."""
    module = spec.argv[spec.argv.index("-m") + 1]
    argv = [spec.argv[0], "-m", "pyinstrument", "-i", "0.0005", "-r", "pyisession",
            "-o", str(session_path), "-m", module]
    profiled = ServerSpec(spec.name, argv, spec.diagnostics, settings=spec.settings)
    client, result = await start_session(profiled, root)
    try:
        await work(Session(profiled, client, sync_kind(result)))
    finally:
        with contextlib.suppress(Exception):
            await client.stop(timeout=60)


def slow_changes(results: dict[str, Any], by_name: dict[str, Doc]) -> list[tuple[str, Doc]]:
    """(didChange op, document) pairs behind a missed didChange target: every target-size
    document on which hwf-lsp misses 3× the floor with that edit."""
    missed = [t for t in results["targets"] if t["holds"] is False and t.get("op") in CHANGE_OPS]
    missed_ops = {t["op"] for t in missed}
    return [(r["op"], by_name[r["doc"]]) for r in results["ratios"]
            if r["op"] in missed_ops and r["doc"] in by_name and r["doc"] in TARGET_SIZES
            and r.get(f"p50_vs_{FLOOR}") is not None
            and not change_ratio_holds(r[f"p50_vs_{FLOOR}"])]


async def profile_missed(results: dict[str, Any], hwf: ServerSpec, docs: list[Doc],
                         root: Path, out: Path) -> list[dict[str, Any]]:
    """One profile per missed target; each failure to profile is recorded, not raised."""
    missed = [t["target"] for t in results["targets"] if t["holds"] is False]
    by_name = {d.name: d for d in docs}
    profiles: list[dict[str, Any]] = []
    jobs: list[tuple[str, str, Any]] = []
    analysis_jobs: list[tuple[Doc, int, str]] = []
    by_op = {change.op: change for change in CHANGES}
    for op, doc in slow_changes(results, by_name) if hwf.available else []:
        edit, full = by_op[op].edit, by_op[op].full
        changes = 60 if doc.size > 500_000 else 300

        async def change_work(session: Session, doc: Doc = doc, changes: int = changes,
                              edit: str = edit, full: bool = full) -> None:
            uri = (root / f"{doc.name}.profile.hwf.json").as_uri()
            await session.open(uri, doc.text)
            await measure_change(session, doc, uri, changes, 0, edit, full)
        jobs.append((f"event loop (main thread) during {changes} didChange "
                     f"({CHANGE_OPS[op]}) on {doc.name}", f"profile-{op}-{doc.name}",
                     change_work))
        analysis_jobs.append((doc, changes, edit))
    for target in missed:
        op = target.split(" ")[0]
        if op not in ("completion", "hover") or not hwf.available or "size-1m" not in by_name:
            continue
        after_edit = "after a didChange" in target
        doc = by_name["size-1m"]

        async def request_work(session: Session, doc: Doc = doc, op: str = op,
                               after_edit: bool = after_edit) -> None:
            uri = (root / f"{doc.name}.profile.hwf.json").as_uri()
            await session.open(uri, doc.text)
            offset = doc.completion_offset if op == "completion" else doc.hover_offset
            if after_edit:
                await measure_request_after_edit(session, f"textDocument/{op}", doc, uri,
                                                 offset, 60, 0)
            else:
                await measure_request(session, f"textDocument/{op}", uri, offset, 200, 0)
        stem = f"profile-{op}{'-after-edit' if after_edit else ''}-size-1m"
        jobs.append((f"event loop (main thread) during {target}", stem, request_work))
    worst = max((r for r in results["latency"] if r["server"] == hwf.name and r["doc"] in by_name
                 and r["op"].endswith("-after-edit") and (r["p50_ms"] or 0) > SLOW_REQUEST_MS),
                key=lambda r: r["p50_ms"], default=None)
    if worst is not None and hwf.available:
        op, doc = worst["op"].split("-")[0], by_name[worst["doc"]]

        async def worst_work(session: Session, doc: Doc = doc, op: str = op) -> None:
            uri = (root / f"{doc.name}.profile.hwf.json").as_uri()
            await session.open(uri, doc.text)
            offset = doc.completion_offset if op == "completion" else doc.hover_offset
            await measure_request_after_edit(session, f"textDocument/{op}", doc, uri, offset,
                                             20, 0)
        jobs.append((f"not a target, the slowest request: {worst['op']} on {doc.name} "
                     f"(p50 {worst['p50_ms']} ms)", f"profile-{worst['op']}-{doc.name}",
                     worst_work))
    for target, stem, work in jobs:
        session_path = out / f"{stem}.pyisession"
        try:
            await _profiled_server(hwf, session_path, root, work)
            profiles.append(_summarise(target, session_path, out))
        except (LspError, OSError, TimeoutError, ValueError) as exc:
            profiles.append({"target": target, "file": None, "hot": f"profiling failed: {exc}"})
    for doc, repeats, edit in dict.fromkeys(analysis_jobs):  # a full-text twin: one job
        try:
            profiles.append(profile_analysis(doc, repeats, out, edit))
        except Exception as exc:  # noqa: BLE001 - hwf-lsp internals may move; say so
            profiles.append({"target": f"analyse on {doc.name}", "file": None,
                             "hot": f"profiling failed: {type(exc).__name__}: {exc}"})
    if any(t.startswith("cold start") for t in missed):
        profiles.append(profile_cold_start(hwf, out))
    if any(t.startswith("runner") for t in missed):
        profiles.append(profile_runner(out))
    return profiles


FEATURE_IMPORTS = (
    "import importlib, importlib.util\n"
    "for entry in ('hwf_lsp.server.main', 'hwf_lsp.server.cli'):\n"
    "    if importlib.util.find_spec(entry): importlib.import_module(entry); break\n"
    "import hwf_lsp.server.server"
)
"""What the server imports before it can answer `initialize`: the CLI and every feature."""


def _importtime(python: str, statement: str, runs: int = 7) -> dict[str, tuple[int, int]]:
    """module -> (self us, cumulative us), medians of `python -X importtime -c statement` runs
    (one run is too noisy on a shared machine to rank modules)."""
    samples: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for _ in range(runs):
        done = subprocess.run([python, "-X", "importtime", "-c", statement], cwd=REPO,
                              capture_output=True, text=True, timeout=120)
        for line in done.stderr.splitlines():
            parts = line.split("|")
            if len(parts) == 3 and parts[1].strip().isdigit():
                samples[parts[2].strip()].append((int(parts[0].split(":")[1]), int(parts[1])))
    return {module: (int(median([float(v[0]) for v in values])),
                     int(median([float(v[1]) for v in values])))
            for module, values in samples.items()}


def profile_cold_start(hwf: ServerSpec, out: Path) -> dict[str, Any]:
    """What hwf-lsp imports beyond `import pygls.lsp.server`, by self import time."""
    ours = _importtime(hwf.argv[0], FEATURE_IMPORTS)
    base = _importtime(hwf.argv[0], "import pygls.lsp.server")
    extra = sorted(((t[0], t[1], m) for m, t in ours.items() if m not in base), reverse=True)
    path = out / "profile-cold-start-importtime.txt"
    lines = [f"modules imported by the server's entry point and hwf_lsp.server.server (every "
             f"feature) beyond `import pygls.lsp.server`: "
             f"{len(extra)}, self time {sum(e[0] for e in extra) / 1000:.1f} ms",
             "self_us  cumulative_us  module"]
    lines += [f"{own:>7} {cumulative:>14}  {module}" for own, cumulative, module in extra]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {"target": "cold start", "file": _shown(path),
            "hot": f"{len(extra)} extra modules, {sum(e[0] for e in extra) / 1000:.1f} ms "
            "self: " + ", ".join(f"{m} {own / 1000:.1f} ms" for own, _, m in extra[:8])}


def profile_runner(out: Path) -> dict[str, Any]:
    """The runner's persist path in-process."""
    from pyinstrument import Profiler

    from bench.engine import runner_overhead

    profiler = Profiler(interval=0.0002)
    profiler.start()
    runner_overhead(5)
    profiler.stop()
    session_path = out / "profile-runner.pyisession"
    profiler.last_session.save(str(session_path))
    return _summarise("runner persistence", session_path, out)


def profile_analysis(doc: Doc, repeats: int, out: Path, edit: str = "prompt") -> dict[str, Any]:
    """hwf-lsp checks in a worker thread, which a whole-process pyinstrument run cannot see:
    profile the same call (`hwf_lsp.server.documents.analyse`, then the conversion to LSP
    diagnostics) in-process on the texts the edit produces (one character, alternating x/y)."""
    from pyinstrument import Profiler

    from hwf_lsp.server import convert
    from hwf_lsp.server.documents import analyse

    uri = f"file:///bench/{doc.filename}"
    offset = doc.offset_of(edit)
    texts = [replace_char(doc.text, offset, char) for char in "xy"]
    profiler = Profiler(interval=0.0002)
    profiler.start()
    for version in range(repeats):
        result = analyse(uri, version, texts[version % 2])
        convert.diagnostics(result.findings, result.lines, "utf-16")
    profiler.stop()
    stem = "profile-analyse" + ("" if edit == "prompt" else f"-{edit}")
    session_path = out / f"{stem}-{doc.name}.pyisession"
    profiler.last_session.save(str(session_path))
    return _summarise(f"worker thread: analyse + convert on {doc.name} ({edit} keystroke) "
                      f"x{repeats}", session_path, out)


if __name__ == "__main__":
    for item in hot_in_our_code(Path(sys.argv[1])):
        print(item)
