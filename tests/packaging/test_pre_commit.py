"""The pre-commit hooks (`.pre-commit-hooks.yaml`) as a user's repository runs them.

`pre-commit try-repo <this checkout>` in a throwaway git repository: pre-commit clones
the checkout (with its uncommitted changes), builds a venv, installs hwf-lsp into it
from source with pip, and runs the hooks.  pip is offline here (the packaging tests'
wheelhouse, index switched off), which shows the hooks need nothing but PyPI packages.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from packaging_helpers import REPO, offline_pip_env, wheelhouse
from pre_commit.clientlib import load_manifest
from support.design_tests import case, hwf_test

pytestmark = pytest.mark.skipif(not (REPO / ".git").exists() or shutil.which("git") is None,
                                reason="pre-commit clones the checkout: needs git and a "
                                "git checkout")
GIT_IDENTITY = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
                "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}


def git_repo(folder: Path, files: dict[str, str], env: dict[str, str]) -> Path:
    folder.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=folder, check=True, env=env)
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    subprocess.run(["git", "add", "."], cwd=folder, check=True, env=env)
    return folder


def test_the_hooks_fail_on_a_broken_design_and_a_failing_design_test(tmp_path):
    env = offline_pip_env(wheelhouse(), tmp_path / "home") | GIT_IDENTITY
    env["PRE_COMMIT_HOME"] = str(tmp_path / "pre-commit")
    broken = (REPO / "examples" / "broken.hwf.json").read_text(encoding="utf-8")
    good = (REPO / "examples" / "hello-world.hwf.json").read_text(encoding="utf-8")
    failing = hwf_test(case("wrong on purpose", {"status": "completed"}),
                       design_ref="hello.hwf.json")
    repo = git_repo(tmp_path / "repo", {
        "designs/bad.hwf.json": broken, "hello.hwf.json": good,
        "hello.hwf-test.json": json.dumps(failing)}, env)
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "--all-files"],
        cwd=repo, env=env, capture_output=True, text=True, timeout=600, check=False)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert "hwf check (Hermes Workflow designs)" in output and "Failed" in output
    assert ("designs/bad.hwf.json:5:36: error[one-trigger] a second trigger" in output)
    assert "\nhello.hwf.json:" not in output  # the good design has no finding
    assert ("status: expected 'completed', got 'awaiting_agent'" in output), output
    assert output.count("- hook id:") == 2  # both hooks failed, each with its finding


# (path in a repository, the hooks that run when it changed)
TRIGGERS = [
    ("flow.hwf.json", {"hwf-check", "hwf-test"}),
    ("deep/er/flow.hwf.json", {"hwf-check", "hwf-test"}),
    ("workflow-designs/digest.json", {"hwf-check", "hwf-test"}),
    ("flow.hwf-test.json", {"hwf-test"}),
    ("package.json", set()),
    ("workflow-designs/sub/x.json", set()),
    ("flow.hwf.json.bak", set()),
]


@pytest.mark.parametrize("path,hooks", TRIGGERS)
def test_which_changed_files_run_which_hook(path, hooks):
    manifest = load_manifest(str(REPO / ".pre-commit-hooks.yaml"))
    assert {hook["id"] for hook in manifest
            if re.search(hook["files"], path)} == hooks
