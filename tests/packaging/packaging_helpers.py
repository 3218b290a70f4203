"""Shared by the packaging tests: an offline wheelhouse, so installs are real but quick.

pip's HTTP cache stays empty on this network (the index answers uncacheable), so every
fresh venv would fetch its dependencies again. Instead the wheels a build and an
install need are downloaded once into `.venv/wheelhouse/<hash of the requirements>`;
the tests then install from there with the index switched off. A change of the
requirements makes a new wheelhouse, so a stale one is never used.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def run(argv: list[str], **kwargs) -> subprocess.CompletedProcess:
    """Run a command, failing the test with its output if it fails."""
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=300, **kwargs)
    assert proc.returncode == 0, f"{argv} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc


def requirements(*extra: str) -> list[str]:
    """What building the package and installing its wheel need, from pyproject.toml."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    return [*project["build-system"]["requires"], *project["project"]["dependencies"], *extra]


def wheelhouse(*extra: str) -> Path:
    """A folder of wheels for requirements(*extra), downloaded on first use."""
    wanted = requirements(*extra)
    key = hashlib.sha256("\n".join(sorted(wanted)).encode()).hexdigest()[:16]
    house = Path(sys.prefix) / "wheelhouse" / key
    if not house.is_dir():
        house.parent.mkdir(parents=True, exist_ok=True)
        partial = Path(tempfile.mkdtemp(dir=house.parent, prefix=".partial-"))
        run([sys.executable, "-m", "pip", "download", "-q", "--only-binary", ":all:",
             "-d", str(partial), *wanted])
        try:
            partial.rename(house)
        except OSError:  # another process made it first
            shutil.rmtree(partial, ignore_errors=True)
    return house


def offline_pip_env(house: Path, home: Path) -> dict[str, str]:
    """The environment for a clean install from `house` only: no index, no source tree."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONSAFEPATH", "VIRTUAL_ENV")}
    env |= {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(house), "HOME": str(home)}
    return env
