"""VS Code's JSON engine (vscode-json-languageservice), driven from the tests.

The engine is the one inside VS Code and vscode-json-languageserver; the benchmark's
peer directory installs it.  Tests that need it skip when node or it is missing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from schema_corpus import REPO

VSCODE_MODULES = Path(os.environ.get("HWF_VSCODE_JSON_MODULES",
                                     REPO / "bench" / "peer" / "node_modules"))


needs_vscode_engine = pytest.mark.skipif(
    shutil.which("node") is None or not (VSCODE_MODULES / "vscode-json-languageservice").is_dir(),
    reason="needs node and vscode-json-languageservice (bench/peer/node_modules)")


def run_vscode_engine(request: dict[str, Any]) -> dict[str, Any]:
    """Run tests/schema/vscode_validate.js on `request`; its parsed answer."""
    result = subprocess.run(
        ["node", str(Path(__file__).with_name("vscode_validate.js")), str(VSCODE_MODULES)],
        input=json.dumps(request), capture_output=True, text=True, encoding="utf-8",
        timeout=120, check=True)
    return json.loads(result.stdout)
