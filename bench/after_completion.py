"""`after` completion on a 5,000-node design, in process: p50 and max of `complete()`.

Run: `python -m bench.after_completion [--nodes 5000] [--runs 20]`.  The cursor is in the
`after` list of the middle node (every other node is a candidate, the cycle check included).
"""

from __future__ import annotations

import argparse
import statistics
import time

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    result = measure(args.nodes, args.runs)
    items = result.pop("items")
    shown = ", ".join(f"{k} {v * 1000:.1f} ms" for k, v in result.items())
    print(f"after completion, {args.nodes} nodes, {items:.0f} items: {shown}")


if __name__ == "__main__":
    main()
