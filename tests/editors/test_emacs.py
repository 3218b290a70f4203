"""hwf-lsp driven by a real Emacs with eglot (Debian's emacs-nox 28 + elpa-eglot), in
batch mode, through the README's config verbatim.

Emacs starts as a user's does: installed packages activated (`package-activate-all`,
which an interactive Emacs runs before the init file), then the README's snippet as the
init file, then the design opened with `find-file`. The driver runs the command loop's
`post-command-hook`, where eglot connects and flymake starts.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from editor_support import EMPTY_TYPE, editor, snippet, user_env, write_draft

from hwf_lsp.rules.vocabulary import STEP_KINDS

DRIVER = Path(__file__).with_name("eglot_drive.el")


def drive(config: str, opened: Path, tmp_path: Path, driver: Path = DRIVER, timeout: int = 90,
          **asks: str) -> dict:
    """Open `opened` in Emacs with `config` as the init file, then `driver`; what the driver
    saw (HWF_* asks)."""
    emacs = editor(shutil.which("emacs"), "Emacs")
    init = tmp_path / "init.el"
    init.write_text(config, encoding="utf-8")
    out = tmp_path / "emacs-result.json"
    env = user_env(tmp_path, HWF_DESIGN=str(opened), HWF_OUT=str(out), **asks)
    proc = subprocess.run([emacs, "--batch", "-f", "package-activate-all", "-l", str(init),
                           "-l", str(driver)], env=env, cwd=tmp_path, timeout=timeout,
                          capture_output=True, text=True)
    assert out.exists(), f"Emacs wrote no result (exit {proc.returncode}): {proc.stderr[-2000:]}"
    seen = json.loads(out.read_text(encoding="utf-8"))
    assert "error" not in seen, f"{seen['error']}\n{proc.stderr[-2000:]}"
    return seen


def test_eglot_shows_diagnostics_in_flymake_and_completes_kinds(tmp_path: Path) -> None:
    seen = drive(snippet("tested", "emacs-eglot"), write_draft(tmp_path), tmp_path,
                 HWF_COMPLETE_AT=f"{EMPTY_TYPE[0]},{EMPTY_TYPE[1]}")
    assert seen["mode"] == "hwf-design-mode"
    assert seen["connected"] is True, "eglot did not connect to hwf-lsp"
    assert seen["flymake"] is True, "no diagnostics reached flymake"
    (diagnostic,) = seen["diagnostics"]
    assert diagnostic["type"] == "eglot-error"
    assert "[known-kind]" in diagnostic["message"] and 'unknown type ""' in diagnostic["message"]
    assert (diagnostic["line"], diagnostic["character"]) == (EMPTY_TYPE[0], EMPTY_TYPE[1] - 1)
    assert set(STEP_KINDS) <= set(seen["completion"])  # the draft has its trigger
    assert "trigger" not in seen["completion"]
