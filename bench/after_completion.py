"""`after` completion on a 5,000-node design, in process: p50 and max of `complete()`.

Run: `python -m bench.after_completion [--nodes 5000] [--runs 20] [--protocol]`.  The
cursor is in the `after` list of the middle node (every other node is a candidate, the cycle
check included).  `--protocol` measures the same over stdio, as a user types: each request
follows a keystroke in a prompt at once (the server's check of that text is under way), and
again without an edit.  `--protocol --breaking` measures the keystroke that breaks the JSON:
a `,` typed after the list's last id (a trigger character), the completion asked at once,
then the `,` deleted again.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from bench.gen import Doc, design_with_nodes
from bench.stats import cpu_ticks, stolen_share
from hwf_lsp.analysis.completion_items import complete
from hwf_lsp.analysis.design import design_of
from hwf_lsp.jsontext.jsontree import parse


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
        design = None  # the server builds it with the first request on a version, then keeps it
        for label in ("fresh", "again"):
            wall, cpu = time.perf_counter(), time.process_time()
            design = design or design_of(doc)
            count = len(complete(doc, offset, design=design))
            times[label].append(time.perf_counter() - wall)
            times[f"{label} cpu"].append(time.process_time() - cpu)
    out = {f"{label} p50": statistics.median(v) for label, v in times.items()}
    out.update({f"{label} max": max(v) for label, v in times.items()})
    out["items"] = count
    return out


@asynccontextmanager
async def design_session(nodes: int) -> AsyncIterator[tuple[Any, Doc, str]]:
    """A started hwf-lsp with a `nodes`-node design open: (session, the design, its URI)."""
    from bench.scenarios import Session, start_session, sync_kind
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
            yield session, doc, uri
        finally:
            await client.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)


async def over_protocol(nodes: int, runs: int) -> dict[str, float]:
    """p50 / p99 / max of `after` completion over stdio: right after a keystroke, and again."""
    from bench.scenarios import measure_request, measure_request_after_edit

    async with design_session(nodes) as (session, doc, uri):
        offset = after_cursor(doc.text)
        edited = await measure_request_after_edit(
            session, "textDocument/completion", doc, uri, offset, runs, 3)
        again = await measure_request(session, "textDocument/completion", uri, offset,
                                      runs, 3)
    return {"after edit p50": edited["p50_ms"] / 1000, "after edit p99": edited["p99_ms"] / 1000,
            "after edit max": edited["max_ms"] / 1000,
            "again p50": again["p50_ms"] / 1000, "again p99": again["p99_ms"] / 1000,
            "again max": again["max_ms"] / 1000, "items": float(edited["answered"])}


async def over_protocol_breaking(nodes: int, runs: int) -> dict[str, float]:
    """p50 / p99 / max of `after` completion right after the `,` that breaks the JSON."""
    from bench.gen import position_of
    from bench.stats import summary

    times: list[float] = []
    answered = 0
    async with design_session(nodes) as (session, doc, uri):
        client = session.client
        last_id_end = doc.text.index("]", after_cursor(doc.text))
        while doc.text[last_id_end - 1] in " \n":
            last_id_end -= 1
        at = position_of(doc.text, last_id_end)
        after_comma = {"line": at["line"], "character": at["character"] + 1}
        for k in range(runs + 3):
            for change in ({"range": {"start": at, "end": at}, "text": ","},
                           {"range": {"start": at, "end": after_comma}, "text": ""}):
                version = session.versions[uri] = session.versions[uri] + 1
                seq = client.last_seq()
                await client.send_raw(client.notification_frame(
                    "textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                               "contentChanges": [change]}))
                if change["text"]:
                    answer, seconds = await client.timed_request(
                        "textDocument/completion",
                        {"textDocument": {"uri": uri}, "position": after_comma}, 30)
                    if k >= 3:
                        times.append(seconds)
                        answered += bool(answer and answer.get("items"))
                await client.wait_publish(uri, version, seq, 30)
    stats = summary(times)
    return {"after break p50": stats["p50_ms"] / 1000, "after break p99": stats["p99_ms"] / 1000,
            "after break max": stats["max_ms"] / 1000, "items": float(answered)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--protocol", action="store_true", help="over stdio, after keystrokes")
    parser.add_argument("--breaking", action="store_true",
                        help="with --protocol: after the keystroke that breaks the JSON")
    args = parser.parse_args()
    if args.protocol:
        measured = over_protocol_breaking if args.breaking else over_protocol
        ticks = cpu_ticks()
        result = asyncio.run(measured(args.nodes, args.runs))
        stolen = stolen_share(ticks, cpu_ticks())
        answered = result.pop("items")
        shown = ", ".join(f"{k} {v * 1000:.1f} ms" for k, v in result.items())
        host = f"; {stolen:.1%} of the CPU stolen by the host" if stolen is not None else ""
        print(f"after completion over stdio, {args.nodes} nodes ({answered:.0f} answered): "
              f"{shown}{host}")
        return
    result = measure(args.nodes, args.runs)
    items = result.pop("items")
    shown = ", ".join(f"{k} {v * 1000:.1f} ms" for k, v in result.items())
    print(f"after completion, {args.nodes} nodes, {items:.0f} items: {shown}")


if __name__ == "__main__":
    main()
