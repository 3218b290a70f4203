"""Vendor the language server into the extension: `bundled/libs` gets hwf_lsp and its
runtime libraries, at the versions this interpreter (the repo's .venv) uses.

    .venv/bin/python vscode-extension/scripts/bundle_server.py [TARGET]

So installing the .vsix is the whole install: the extension runs
`bundled/tool/lsp_server.py` with any Python 3.11+ (as ruff-vscode and Microsoft's
vscode-python-tools-extension-template do). Everything bundled is pure Python.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

EXTENSION = Path(__file__).resolve().parents[1]
REPO = EXTENSION.parent
PROJECT = "hwf-lsp"


def runtime_closure(project: str) -> dict[str, str]:
    """Every runtime dependency of `project`, transitively, pinned to its installed version.

    A requirement counts when it needs no extra and is installed here: pip evaluated
    its markers for this Python when it built the venv (`exceptiongroup; python <
    3.11` is not installed, so it is not bundled: the bundle needs 3.11+ anyway).
    """
    pins: dict[str, str] = {}
    todo = [project]
    while todo:
        name = todo.pop()
        for requirement in distribution(name).requires or []:
            if re.search(r"\bextra\s*==", requirement):
                continue
            dependency = re.match(r"[A-Za-z0-9._-]+", requirement).group(0)
            key = re.sub(r"[-_.]+", "-", dependency).lower()
            if key in pins:
                continue
            try:
                pins[key] = distribution(dependency).version
            except PackageNotFoundError:
                continue  # its marker is false here
            todo.append(dependency)
    return pins


def main(argv: list[str]) -> int:
    target = Path(argv[1]).resolve() if len(argv) > 1 else EXTENSION / "bundled" / "libs"
    pins = runtime_closure(PROJECT)
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    wanted = [f"{name}=={version}" for name, version in sorted(pins.items())]
    pip = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
           "--no-deps", "--no-compile", "--target", str(target)]
    subprocess.run([*pip, "--only-binary=:all:", *wanted], check=True)
    # setuptools builds in the tree's build/: a stale module left there (one moved or
    # deleted since) would be bundled too, so it starts empty and is removed after.
    shutil.rmtree(REPO / "build", ignore_errors=True)
    try:
        subprocess.run([*pip, str(REPO)], check=True)
    finally:
        shutil.rmtree(REPO / "build", ignore_errors=True)
    shutil.rmtree(target / "bin", ignore_errors=True)  # console scripts: the extension runs none
    # The Hermes dashboard's canvas bundle (package data when it was built): the
    # extension has its own copy of the canvas, the server never serves it.
    shutil.rmtree(target / "hwf_lsp" / "hermes" / "dashboard" / "dist", ignore_errors=True)
    for cache in target.rglob("__pycache__"):
        shutil.rmtree(cache, ignore_errors=True)
    size = sum(p.stat().st_size for p in target.rglob("*") if p.is_file())
    print(f"bundled {PROJECT} + {', '.join(wanted)} into {target} ({size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
