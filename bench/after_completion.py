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


def measure(nodes: int, runs: int) -> tuple[float, float, int]:
    text = design_with_nodes(nodes).text
    offset = after_cursor(text)
    timings = []
    count = 0
    for _ in range(runs):
        doc = parse(text)  # a fresh document each time: nothing cached between requests
        doc.root  # noqa: B018 - the server has the tree before a completion arrives
        started = time.perf_counter()
        count = len(complete(doc, offset))
        timings.append(time.perf_counter() - started)
    return statistics.median(timings), max(timings), count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    p50, worst, count = measure(args.nodes, args.runs)
    print(f"after completion, {args.nodes} nodes: p50 {p50 * 1000:.1f} ms, "
          f"max {worst * 1000:.1f} ms, {count} items")


if __name__ == "__main__":
    main()
