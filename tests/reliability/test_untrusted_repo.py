"""Opening an untrusted repository runs none of its code (issue 13, item 1).

A hostile checkout plants modules that Python would import from the current
directory — `hwf_lsp/`, `json.py`, `pygls/`, `asyncio/`, `logging/`, `argparse.py`, … —
each writing a marker file when imported, next to a design. Every documented way of
starting the CLI or the server, with that checkout as the current directory, must
leave no marker. The VS Code side (the extension's own probes and launch) is tested in
vscode-extension/src/test/pythonModel.test.ts and the code-server e2e.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from rawlsp import RawLsp

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
BUNDLE_ENTRY = REPO / "vscode-extension" / "bundled" / "tool" / "lsp_server.py"

# What a hostile checkout can plant: the package itself, its libraries, and stdlib
# modules the CLI and server import after start-up.
BAIT = ["hwf_lsp/__init__.py", "pygls/__init__.py", "lsprotocol/__init__.py", "cattrs/__init__.py",
        "attrs/__init__.py", "json.py", "asyncio/__init__.py", "logging/__init__.py", "argparse.py",
        "typing_extensions.py"]

DESIGN = """{
  "name": "hostile",
  "nodes": [
    {"id": "start", "type": "trigger"},
    {"id": "ask", "type": "agent", "after": ["nowhere"]}
  ]
}
"""


def hostile_repo(root: Path, bait: list[str]) -> tuple[Path, Path]:
    """A checkout with `bait` planted and a design; the directory its markers land in."""
    repo, markers = root / "repo", root / "markers"
    markers.mkdir(parents=True)
    for name in bait:
        module = repo / name
        module.parent.mkdir(parents=True, exist_ok=True)
        module.write_text(f"open({str(markers / name.replace('/', '.'))!r}, 'w').write('ran')\n")
    (repo / "hostile.hwf.json").write_text(DESIGN)
    return repo, markers


def environment(root: Path) -> dict[str, str]:
    """The caller's environment without the flags that would hide the exposure."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONSAFEPATH", "PYTHONPATH")}
    env["HERMES_HOME"] = str(root / "hermes-home")
    return env


def lsp_round_trip(argv: list[str], repo: Path, env: dict[str, str]) -> list[dict]:
    """initialize, open the design, wait for its diagnostics, shutdown, exit; the diagnostics."""
    with RawLsp(argv=argv, cwd=repo, env=env) as lsp:
        lsp.initialize(repo)
        uri = (repo / "hostile.hwf.json").as_uri()
        lsp.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "json", "version": 1, "text": DESIGN}})
        published = lsp.wait_notification(
            "textDocument/publishDiagnostics", lambda p: p["uri"] == uri and p["diagnostics"])
        assert lsp.close() == 0, lsp.stderr_tail()
    return published["params"]["diagnostics"]


def console_script(name: str) -> str:
    path = BIN / name
    if not path.exists():
        pytest.skip(f"{name} is not installed next to {sys.executable}")
    return str(path)


def test_hwf_cli_runs_no_code_of_the_checkout(tmp_path: Path) -> None:
    repo, markers = hostile_repo(tmp_path, BAIT)
    hwf = console_script("hwf")
    cases = [
        ([hwf, "check", "hostile.hwf.json"], 1, "nowhere"),
        ([hwf, "check", "--format", "json", "hostile.hwf.json"], 1, "nowhere"),
        ([hwf, "runs"], 0, ""),
    ]
    for argv, code, says in cases:
        done = subprocess.run(argv, cwd=repo, env=environment(tmp_path), capture_output=True,
                              text=True, timeout=60)
        assert done.returncode == code, (argv, done.stdout, done.stderr)
        assert says in done.stdout, (argv, done.stdout)
        assert sorted(p.name for p in markers.iterdir()) == [], argv


def skip_without_bundle(reason: str) -> None:
    """Skip, unless `make test-vscode` (which built the bundle first) said it must be there."""
    if os.environ.get("HWF_REQUIRE_BUNDLE") == "1":
        pytest.fail(f"{reason}, and HWF_REQUIRE_BUNDLE=1")
    pytest.skip(reason)


@pytest.mark.parametrize("invocation", ["hwf-lsp", "python -P -m hwf_lsp", "bundled entry"])
def test_safe_server_invocations_run_no_code_of_the_checkout(tmp_path: Path, invocation: str) -> None:
    repo, markers = hostile_repo(tmp_path, BAIT)
    argv = {
        "hwf-lsp": lambda: [console_script("hwf-lsp")],
        "python -P -m hwf_lsp": lambda: [sys.executable, "-P", "-m", "hwf_lsp"],
        # The .vsix's entry, as the extension starts it (the libs come from this venv
        # when `make vsix` has not filled bundled/libs).
        "bundled entry": lambda: [sys.executable, "-P", str(BUNDLE_ENTRY)],
    }[invocation]()
    if invocation == "bundled entry" and not BUNDLE_ENTRY.exists():
        skip_without_bundle("no bundled entry")
    diagnostics = lsp_round_trip(argv, repo, environment(tmp_path))
    assert any("nowhere" in d["message"] for d in diagnostics), diagnostics
    assert sorted(p.name for p in markers.iterdir()) == []


def test_bundled_server_runs_on_a_python_without_hwf_lsp(tmp_path: Path) -> None:
    """The .vsix's promise: its libs plus any Python 3.11+ (here a fresh venv) are a server."""
    if not (BUNDLE_ENTRY.parents[1] / "libs" / "hwf_lsp").is_dir():
        skip_without_bundle("bundled/libs is not built (make vsix)")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "bare")], check=True)
    bare = str(tmp_path / "bare" / "bin" / "python")
    assert subprocess.run([bare, "-P", "-c", "import hwf_lsp"], capture_output=True).returncode != 0
    repo, markers = hostile_repo(tmp_path, BAIT)
    diagnostics = lsp_round_trip([bare, "-P", str(BUNDLE_ENTRY)], repo, environment(tmp_path))
    assert any("nowhere" in d["message"] for d in diagnostics), diagnostics
    assert sorted(p.name for p in markers.iterdir()) == []


def test_plain_python_m_drops_the_current_directory_before_importing(tmp_path: Path) -> None:
    """`python -m hwf_lsp` from the checkout: everything after hwf_lsp itself is safe."""
    repo, markers = hostile_repo(tmp_path, [b for b in BAIT if not b.startswith("hwf_lsp/")])
    env = environment(tmp_path)
    lsp_round_trip([sys.executable, "-m", "hwf_lsp"], repo, env)
    assert sorted(p.name for p in markers.iterdir()) == []


def test_plain_python_m_still_finds_a_planted_package(tmp_path: Path) -> None:
    """Why the docs say `-P`: without it, the checkout's `hwf_lsp/` is the one imported."""
    repo, markers = hostile_repo(tmp_path, ["hwf_lsp/__init__.py"])
    subprocess.run([sys.executable, "-m", "hwf_lsp", "--version"], cwd=repo,
                   env=environment(tmp_path), capture_output=True, timeout=60)
    assert sorted(p.name for p in markers.iterdir()) == ["hwf_lsp.__init__.py"]
    (markers / "hwf_lsp.__init__.py").unlink()
    subprocess.run([sys.executable, "-P", "-m", "hwf_lsp", "--version"], cwd=repo,
                   env=environment(tmp_path), capture_output=True, timeout=60, check=True)
    assert sorted(p.name for p in markers.iterdir()) == []
