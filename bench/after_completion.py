"""`after` completion on a 5,000-node design, in process: p50 and max of `complete()`.

Run: `python -m bench.after_completion [--nodes 5000] [--runs 20] [--protocol]`.  The
cursor is in the `after` list of the middle node (every other node is a candidate, the cycle
check included).  `--protocol` measures the same over stdio, as a user types: each request
follows a keystroke in a prompt at once (the server's check of that text is under way), and
again without an edit.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from bench.gen import design_with_nodes
from hwf_lsp.analysis.completion import complete
from hwf_lsp.analysis.jsontree import parse


def after_cursor(text: str) -> int:
    """Just inside the `after` list of the middle node (before its first entry)."""
    middle = text.index('"after": [', len(text) // 2)
    return middle + len('"after": [')


def measure(nodes: int, runs: int) -> dict[str, float]:
    """Wall and CPU time (a loaded machine inflates the wall) of the first completion on a
    fresh document (its node list built) and of a second one on the same document."""
    text = design_with_nodes(nodes).text
    offset = after_cursor(text)
    times: dict[str, list[float]] = {"fresh": [], "fresh cpu": [], "again": [], "again cpu": []}
    count = 0
    for _ in range(runs):
        doc = parse(text)  # a fresh document each time: nothing cached between versions
        doc.root  # noqa: B018 - the server has the root before a completion arrives
        for label in ("fresh", "again"):
            wall, cpu = time.perf_counter(), time.process_time()
            count = len(complete(doc, offset))
            times[label].append(time.perf_counter() - wall)
            times[f"{label} cpu"].append(time.process_time() - cpu)
    out = {f"{label} p50": statistics.median(v) for label, v in times.items()}
    out.update({f"{label} max": max(v) for label, v in times.items()})
    out["items"] = count
    return out


async def over_protocol(nodes: int, runs: int) -> dict[str, float]:
    """p50 / p99 of `after` completion over stdio: right after a keystroke, and again."""
    from bench.scenarios import (
        Session,
        measure_request,
        measure_request_after_edit,
        start_session,
        sync_kind,
    )
    from bench.servers import hwf_lsp_spec, python_of_venv

    doc = design_with_nodes(nodes)
    root = Path(tempfile.mkdtemp(prefix="hwf-bench-after-"))
    try:
        (root / doc.filename).write_text(doc.text, encoding="utf-8")
        spec = hwf_lsp_spec(python_of_venv())
        client, result = await start_session(spec, root)
        session = Session(spec, client, sync_kind(result))
        try:
            uri = (root / doc.filename).as_uri()
            await session.open(uri, doc.text)
            offset = after_cursor(doc.text)
            edited = await measure_request_after_edit(
                session, "textDocument/completion", doc, uri, offset, runs, 3)
            again = await measure_request(session, "textDocument/completion", uri, offset,
                                          runs, 3)
        finally:
            await client.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return {"after edit p50": edited["p50_ms"] / 1000, "after edit p99": edited["p99_ms"] / 1000,
            "again p50": again["p50_ms"] / 1000, "again p99": again["p99_ms"] / 1000,
            "items": float(edited["answered"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--protocol", action="store_true", help="over stdio, after keystrokes")
    args = parser.parse_args()
    if args.protocol:
        result = asyncio.run(over_protocol(args.nodes, args.runs))
        answered = result.pop("items")
        shown = ", ".join(f"{k} {v * 1000:.1f} ms" for k, v in result.items())
        print(f"after completion over stdio, {args.nodes} nodes ({answered:.0f} answered): {shown}")
        return
    result = measure(args.nodes, args.runs)
    items = result.pop("items")
    shown = ", ".join(f"{k} {v * 1000:.1f} ms" for k, v in result.items())
    print(f"after completion, {args.nodes} nodes, {items:.0f} items: {shown}")


if __name__ == "__main__":
    main()
