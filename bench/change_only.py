"""Only the didChange → publishDiagnostics scenario, hwf-lsp beside the floor.

    python -m bench.change_only [--samples N] [--docs 10k,100k,...] [--edit prompt|id|break]
                                [--full] [--peer]

The full `python -m bench` takes ~12 min; this re-measures the one target a change to the
diagnostics path moves, with the same documents, edits and client as the full run.  The
servers take turns sample by sample, so each ratio compares samples taken milliseconds apart.
`--edit id` edits a character of the middle node's id instead of a prompt (the full run's
"id keystroke"), `--edit break` puts a letter in place of the comma after it (the JSON
breaks); `--full` sends each edit as the whole new text; `--peer` adds the pull-mode peer.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
from pathlib import Path

from bench.gen import Doc, all_docs, write_docs
from bench.scenarios import Session, measure_change_in_turns, start_session, sync_kind
from bench.servers import (
    SCHEMA,
    floor_spec,
    hwf_lsp_spec,
    peer_specs,
    python_of_venv,
)


async def measure(docs: list[Doc], samples: int, root: Path, edit: str = "prompt",
                  full: bool = False, peer: bool = False) -> list[dict]:
    python = python_of_venv()
    specs = [hwf_lsp_spec(python), floor_spec(python, "incremental")]
    if peer:
        specs += [s for s in peer_specs(SCHEMA, "schema/") if s.name == "peer-pull"]
    sessions = []
    for spec in specs:
        client, result = await start_session(spec, root)
        sessions.append(Session(spec, client, sync_kind(result)))
    rows = []
    try:
        for doc in docs:
            row: dict = {"doc": doc.name, "bytes": doc.size}
            uri = (root / doc.filename).as_uri()
            for session in sessions:
                await session.open(uri, doc.text)
            measured = await measure_change_in_turns(
                [(session, uri) for session in sessions], doc, samples, 3, edit, full)
            for session, result in zip(sessions, measured, strict=True):
                row[session.spec.name] = result
                await session.close(uri)
            rows.append(row)
            hwf, floor = row["hwf-lsp"], row["floor"]
            line = (f"{doc.name:12} {doc.size:>9} B  hwf p50 {hwf['p50_ms']:8.3f} p99 "
                    f"{hwf['p99_ms']:8.3f} ms  floor p50 {floor['p50_ms']:8.3f} ms  ratio "
                    f"{hwf['p50_ms'] / floor['p50_ms']:6.2f}")
            if "peer-pull" in row:
                line += f"  peer-pull p50 {row['peer-pull']['p50_ms']:8.3f} ms"
            print(line + f"  (diagnostics {hwf['diagnostics']})", flush=True)
    finally:
        for session in sessions:
            await session.client.stop()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.change_only", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=50)
    parser.add_argument("--docs", default="", help="comma-separated names, e.g. 10k,nodes-500")
    parser.add_argument("--edit", choices=("prompt", "id", "break"), default="prompt")
    parser.add_argument("--full", action="store_true", help="send the whole new text")
    parser.add_argument("--peer", action="store_true", help="measure peer-pull too")
    args = parser.parse_args(argv)
    docs = all_docs()
    if args.docs:
        wanted = args.docs.split(",")
        docs = [d for d in docs if any(d.name.endswith(w) for w in wanted)]
    root = Path(tempfile.mkdtemp(prefix="hwf-bench-change-"))
    try:
        write_docs(docs, root)
        asyncio.run(measure(docs, args.samples, root, args.edit, args.full, args.peer))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
