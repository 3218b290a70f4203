"""Only the didChange → publishDiagnostics scenario, hwf-lsp beside the floor.

    python -m bench.change_only [--samples N] [--docs 10k,100k,...] [--edit prompt|id]

The full `python -m bench` takes ~10 min; this re-measures the one target a change to the
diagnostics path moves, with the same documents, edits and client as the full run.  The two
servers take turns per document, so each ratio compares numbers taken seconds apart.
`--edit id` edits a character of the middle node's id instead of a prompt (an edit that must
take the full check; `Doc.id_edit_offset`, the same edit as the full run's "id keystroke").
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
from pathlib import Path

from bench.gen import Doc, all_docs, write_docs
from bench.scenarios import Session, measure_change, start_session, sync_kind
from bench.servers import floor_spec, hwf_lsp_spec, python_of_venv


async def measure(docs: list[Doc], samples: int, root: Path, edit: str = "prompt"
                  ) -> list[dict]:
    python = python_of_venv()
    specs = [hwf_lsp_spec(python), floor_spec(python, "incremental")]
    sessions = []
    for spec in specs:
        client, result = await start_session(spec, root)
        sessions.append(Session(spec, client, sync_kind(result)))
    rows = []
    try:
        for doc in docs:
            row = {"doc": doc.name, "bytes": doc.size}
            for session in sessions:
                uri = (root / doc.filename).as_uri()
                await session.open(uri, doc.text)
                row[session.spec.name] = await measure_change(session, doc, uri, samples, 3, edit)
                await session.close(uri)
            rows.append(row)
            hwf, floor = row["hwf-lsp"]["p50_ms"], row["floor"]["p50_ms"]
            print(f"{doc.name:12} {doc.size:>9} B  hwf p50 {hwf:8.3f} ms  floor p50 "
                  f"{floor:8.3f} ms  ratio {hwf / floor:6.2f}  (diagnostics "
                  f"{row['hwf-lsp']['diagnostics']})", flush=True)
    finally:
        for session in sessions:
            await session.client.stop()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.change_only", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=50)
    parser.add_argument("--docs", default="", help="comma-separated names, e.g. 10k,nodes-500")
    parser.add_argument("--edit", choices=("prompt", "id"), default="prompt")
    args = parser.parse_args(argv)
    docs = all_docs()
    if args.docs:
        wanted = args.docs.split(",")
        docs = [d for d in docs if any(d.name.endswith(w) for w in wanted)]
    root = Path(tempfile.mkdtemp(prefix="hwf-bench-change-"))
    try:
        write_docs(docs, root)
        asyncio.run(measure(docs, args.samples, root, args.edit))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
