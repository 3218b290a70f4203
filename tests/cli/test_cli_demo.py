"""`make demo` runs examples/demo.py: it must pass, end to end, on the real `hwf` script."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hwf_cli_helpers import ROOT, SCRUBBED

HWF_SCRIPT = Path(sys.executable).parent / "hwf"


@pytest.mark.skipif(not HWF_SCRIPT.exists(), reason="needs the hwf console script (make venv)")
def test_demo_passes(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
    env["HWF_DEMO_HOME"] = str(tmp_path / "demo-home")
    done = subprocess.run([sys.executable, "examples/demo.py"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    for header in ("=== 1. Check the examples", "=== 2. Run the review flow",
                   "=== 3. Answer the approval", "=== 4. Where the run state lives"):
        assert header in done.stdout
    assert "Demo OK." in done.stdout
    assert done.stdout.count("  ok: ") == 5
    runs = list((tmp_path / "demo-home" / "workflow-runs").glob("*.json"))
    assert len(runs) == 1
