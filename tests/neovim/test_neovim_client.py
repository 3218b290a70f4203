"""hwf-lsp driven by a real Neovim (Debian's package), headless.

Neovim is the second real client: it negotiates its own capabilities and counts
positions itself, so agreement with `hwf check --format json` here means the
ranges a Neovim user sees are the ones the CLI reports (contract 2).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hwf_lsp.workflow.vocabulary import KINDS

ROOT = Path(__file__).resolve().parents[2]
DRIVER = Path(__file__).with_name("drive.lua")
NVIM = shutil.which("nvim")

pytestmark = pytest.mark.skipif(NVIM is None, reason="neovim is not installed (make test installs it)")


def drive(design: Path, tmp_path: Path, complete_at: tuple[int, int] | None = None) -> dict:
    out = tmp_path / "nvim-result.json"
    env = dict(os.environ, HWF_PYTHON=sys.executable, HWF_DESIGN=str(design), HWF_OUT=str(out),
               HERMES_HOME=str(tmp_path / "home"))
    if complete_at:
        env["HWF_COMPLETE_AT"] = f"{complete_at[0]},{complete_at[1]}"
    subprocess.run([NVIM, "--headless", "--clean", "-u", "NONE", "-c", f"luafile {DRIVER}"],
                   env=env, timeout=60, check=True, capture_output=True)
    return json.loads(out.read_text(encoding="utf-8"))


def cli_defects(design: Path) -> list[dict]:
    proc = subprocess.run([sys.executable, "-m", "hwf_lsp.cli", "check", "--format", "json",
                           str(design)], capture_output=True, text=True, timeout=60)
    return json.loads(proc.stdout)[0]["defects"]


def as_tuple(line, char, end_line, end_char, msg) -> tuple:
    return (line, char, end_line, end_char, msg)


@pytest.mark.parametrize("example", ["broken.hwf.json", "broken-shape.hwf.json"])
def test_neovim_shows_the_cli_verdict_at_the_same_ranges(example: str, tmp_path: Path) -> None:
    design = tmp_path / example
    shutil.copy(ROOT / "examples" / example, design)
    seen = drive(design, tmp_path)
    assert seen["waited_ok"], "no diagnostics reached Neovim within 20 s"
    got = sorted(as_tuple(d["line"], d["character"], d["end_line"], d["end_character"],
                          d["message"]) for d in seen["diagnostics"])
    want = sorted(as_tuple(r["start"]["line"], r["start"]["character"], r["end"]["line"],
                           r["end"]["character"], d["msg"])
                  for d in cli_defects(design) for r in [d["range"]])
    assert got == want
    assert {d["source"] for d in seen["diagnostics"]} == {"hwf"}
    assert all(d["code"] for d in seen["diagnostics"])


def test_neovim_completes_every_kind_inside_an_empty_type(tmp_path: Path) -> None:
    design = tmp_path / "draft.hwf.json"
    lines = ['{"name": "draft", "nodes": [', '  {"id": "start", "type": "trigger"},',
             '  {"id": "a", "type": "", "after": ["start"]}', "]}"]
    design.write_text("\n".join(lines) + "\n", encoding="utf-8")
    column = lines[2].index('"type": "') + len('"type": "')
    seen = drive(design, tmp_path, complete_at=(2, column))
    assert set(KINDS) <= set(seen["completion"])
