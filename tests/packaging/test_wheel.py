"""The package as a user installs it (issue 15, item 1).

`python -m build` makes the sdist, then the wheel from the sdist (so a file the sdist
forgets breaks the wheel here, not on a user's machine). The wheel goes into a fresh
venv, not editable, with its dependencies installed for real; its `hwf` checks an
example and its `hwf-lsp` answers one LSP round trip, both started outside the
repository so nothing can come from the source tree.
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from packaging_helpers import REPO, offline_pip_env, run, wheelhouse
from reliability.rawlsp import RawLsp, open_params

EXAMPLES = REPO / "examples"


@pytest.fixture(scope="module")
def pip_env(tmp_path_factory) -> dict[str, str]:
    return offline_pip_env(wheelhouse(), tmp_path_factory.mktemp("home"))


@pytest.fixture(scope="module")
def dist(tmp_path_factory, pip_env) -> Path:
    out = tmp_path_factory.mktemp("dist")
    run([sys.executable, "-m", "build", "--outdir", str(out), str(REPO)], env=pip_env)
    return out


@pytest.fixture(scope="module")
def venv_bin(dist: Path, tmp_path_factory, pip_env) -> Path:
    """A fresh venv (no system site-packages, no pip of its own) with the wheel installed."""
    venv = tmp_path_factory.mktemp("venv") / "env"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)])
    wheel = next(dist.glob("hwf_lsp-*.whl"))
    run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install",
         "-q", str(wheel)], env=pip_env)
    return venv / "bin"


def test_build_makes_an_sdist_and_a_wheel_of_the_package(dist: Path) -> None:
    (sdist,) = dist.glob("hwf_lsp-*.tar.gz")
    (wheel,) = dist.glob("hwf_lsp-*-py3-none-any.whl")
    with tarfile.open(sdist) as tar:
        in_sdist = {name.split("/", 1)[1] for name in tar.getnames() if "/" in name}
    assert {"README.md", "LICENSE", "pyproject.toml", "hwf_lsp/__main__.py",
            "schema/hermes-workflow-design.schema.json", "examples/hello-world.hwf.json",
            "examples/agents/echo_agent.py", "docs/design-format.md"} <= in_sdist
    with zipfile.ZipFile(wheel) as whl:
        in_wheel = set(whl.namelist())
        entry_points = next(whl.read(n).decode() for n in in_wheel
                            if n.endswith(".dist-info/entry_points.txt"))
    assert "hwf_lsp/server/main.py" in in_wheel
    assert "hwf_lsp/hermes/dashboard/manifest.json" in in_wheel  # the Hermes dashboard tab
    assert "hwf_lsp/hermes/dashboard/manifest.json" in in_sdist
    assert {name.split("/")[0] for name in in_wheel} == {
        "hwf_lsp", wheel.name.split("-py3")[0] + ".dist-info"}, "only the package ships"
    assert "hwf = hwf_lsp.cli:main" in entry_points
    assert "hwf-lsp = hwf_lsp.server.main:main" in entry_points
    assert "[hwf_lsp.hwf_subcommands]\nhermes = hwf_lsp.hermes.hwf_subcommand" in entry_points


def test_the_venv_imports_the_installed_package(venv_bin: Path, tmp_path: Path) -> None:
    where = run([str(venv_bin / "python"), "-P", "-c", "import hwf_lsp, pygls; "
                 "print(hwf_lsp.__file__); print(pygls.__file__)"], cwd=tmp_path).stdout
    venv = venv_bin.parent.resolve()
    assert all(Path(line).resolve().is_relative_to(venv) for line in where.split()), where


@pytest.mark.parametrize(("example", "code", "summary"), [
    ("hello-world.hwf.json", 0, "checked 1 file: 0 errors, 0 warnings"),
    ("broken.hwf.json", 1, "checked 1 file: 17 errors, 3 warnings"),
])
def test_installed_hwf_checks_an_example(venv_bin: Path, tmp_path: Path, example: str,
                                         code: int, summary: str) -> None:
    proc = subprocess.run([str(venv_bin / "hwf"), "check", str(EXAMPLES / example)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == code, proc.stderr
    assert summary in proc.stdout + proc.stderr


def test_installed_hwf_finds_the_plugin_subcommand_by_its_entry_point(
        venv_bin: Path, tmp_path: Path) -> None:
    """`hwf hermes` is registered by an entry point (hwf_lsp.cli never imports the plugin)."""
    proc = subprocess.run([str(venv_bin / "hwf"), "hermes", "cron-prompt", "abcdef12"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "abcdef12" in proc.stdout


def test_installed_hwf_lsp_answers_one_round_trip(venv_bin: Path, tmp_path: Path) -> None:
    text = (EXAMPLES / "broken.hwf.json").read_text(encoding="utf-8")
    uri = (tmp_path / "broken.hwf.json").as_uri()
    with RawLsp(argv=[str(venv_bin / "hwf-lsp")], cwd=tmp_path) as lsp:
        init = lsp.initialize(tmp_path)
        assert init["result"]["serverInfo"]["name"] == "hwf-lsp"
        lsp.notify("textDocument/didOpen", open_params(uri, text))
        published = lsp.wait_notification("textDocument/publishDiagnostics",
                                          lambda p: p["uri"] == uri and p["diagnostics"])
        assert lsp.close() == 0, lsp.stderr_tail()
    assert {d["code"] for d in published["params"]["diagnostics"]} >= {"one-trigger", "acyclic"}



def test_uv_tool_install_gives_working_commands(tmp_path: Path) -> None:
    """`uv tool install .`, with uv from a throwaway venv, puts a working `hwf` and `hwf-lsp`
    in its bin folder. (`pipx install .` works too, checked by hand: a test of it costs a
    minute of ensurepip on this machine.)"""
    house = wheelhouse("uv")
    env = offline_pip_env(house, tmp_path / "home")
    tools = tmp_path / "tools"
    run([sys.executable, "-m", "venv", "--without-pip", str(tools)])
    run([sys.executable, "-m", "pip", "--python", str(tools / "bin" / "python"), "install", "-q",
         "uv"], env=env)
    bin_dir = tmp_path / "bin"
    env |= {"UV_TOOL_DIR": str(tmp_path / "uv-tools"), "UV_TOOL_BIN_DIR": str(bin_dir),
            "UV_CACHE_DIR": str(tmp_path / "uv-cache")}
    run([str(tools / "bin" / "uv"), "tool", "install", "--offline", "--no-index", "--find-links",
         str(house), str(REPO)], env=env, cwd=tmp_path)
    proc = subprocess.run([str(bin_dir / "hwf"), "check", str(EXAMPLES / "hello-world.hwf.json")],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "language server" in run([str(bin_dir / "hwf-lsp"), "--help"], cwd=tmp_path).stdout
