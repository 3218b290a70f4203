"""The editor shows what `hwf check --format json` reports: same rules, messages and ranges."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers_lsp import as_tuple, design_uri, open_and_wait

from hwf_lsp.jsontext.positions import LineIndex

pytestmark = pytest.mark.asyncio(loop_scope="module")

EXAMPLES = sorted(p for p in (Path(__file__).resolve().parents[2] / "examples").rglob("*.json")
                  if not p.name.endswith((".expected.json", ".hwf-test.json")))
SEVERITY = {"error": 1, "warning": 2}


def cli_check(paths: list[Path]) -> dict[str, list[dict]]:
    out = subprocess.run(
        [sys.executable, "-c", "from hwf_lsp.cli import main; raise SystemExit(main())",
         "check", "--format", "json", *map(str, paths)],
        capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode in (0, 1), out.stderr
    return {entry["path"]: entry["defects"] for entry in json.loads(out.stdout)}


def in_encoding(text: str, rng: dict, encoding: str) -> tuple[int, int, int, int]:
    """A contract range (UTF-16) re-expressed in the client's encoding."""
    lines = LineIndex(text)
    out = []
    for end in ("start", "end"):
        offset = lines.offset(rng[end]["line"], rng[end]["character"], "utf-16")
        out.extend(lines.position(offset, encoding))
    return tuple(out)


async def test_server_matches_hwf_check(client):
    assert EXAMPLES
    reported = cli_check(EXAMPLES)
    for path in EXAMPLES:
        text = path.read_text(encoding="utf-8")
        diagnostics = await open_and_wait(
            client, design_uri(f"parity-{path.stem}-{client.client_name}"), text)
        got = sorted((d.code, d.message, d.severity, as_tuple(d.range)) for d in diagnostics)
        want = sorted((d["rule"], d["msg"], SEVERITY[d["severity"]],
                       in_encoding(text, d["range"], client.encoding))
                      for d in reported[str(path)])
        assert got == want, path.name
