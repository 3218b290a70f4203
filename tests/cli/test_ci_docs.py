"""The README's "In CI" snippets say what works: the workflow installs hwf-lsp from a
source no one else can publish under its name, its `hwf` commands parse, and the
pre-commit config names hooks the repository ships."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml

from hwf_lsp.cli import build_parser

REPO = Path(__file__).resolve().parents[2]


def snippet(name: str) -> str:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    found = re.search(rf"<!-- documented: {name} -->\n```yaml\n(.*?)\n```", text, re.DOTALL)
    assert found, f"README.md has no yaml block marked <!-- documented: {name} -->"
    return found.group(1)


def hwf_commands() -> list[str]:
    workflow = yaml.safe_load(snippet("github-actions"))
    steps = workflow["jobs"]["designs"]["steps"]
    return [step["run"] for step in steps if step.get("run", "").startswith("hwf ")]


def installs_from_a_named_source(command: str) -> bool:
    """A `pip install` of hwf-lsp names where it comes from (a git URL, a path, a wheel):
    hwf-lsp is not on PyPI, so a bare `hwf-lsp` would fetch whatever someone published
    under that name."""
    targets = [word for word in shlex.split(command)[2:] if not word.startswith("-")]
    return bool(targets) and all(
        re.fullmatch(r"hwf-lsp\s*@\s*git\+\S+", target) or target.startswith(("git+", ".", "/"))
        or target.endswith(".whl") for target in targets)


@pytest.mark.parametrize(("command", "named"), [
    ("pip install hwf-lsp", False),
    ("pip install -U hwf-lsp", False),
    ("pip install hwf-lsp==0.1.0", False),
    ("pip install", False),
    ('pip install "hwf-lsp @ git+https://example.org/me/hwf-lsp@v0.1.0"', True),
    ("pip install git+https://example.org/me/hwf-lsp", True),
    ("pip install ./hwf-lsp", True),
    ("pip install dist/hwf_lsp-0.1.0-py3-none-any.whl", True),
])
def test_the_install_check_tells_a_named_source_from_a_bare_name(command, named):
    assert installs_from_a_named_source(command) is named


def test_the_workflow_installs_hwf_lsp_from_a_named_source():
    workflow = yaml.safe_load(snippet("github-actions"))
    installs = [step["run"] for step in workflow["jobs"]["designs"]["steps"]
                if step.get("run", "").startswith("pip install")]
    assert installs, "the workflow installs nothing"
    for command in installs:
        assert installs_from_a_named_source(command), command


def test_the_workflow_runs_check_and_test():
    assert [c.split()[1:3] for c in hwf_commands()] == [
        ["check", "--format"], ["check", "--format"], ["test", "--format"]]


@pytest.mark.parametrize("command", hwf_commands())
def test_each_hwf_command_of_the_workflow_parses(command):
    words = shlex.split(re.sub(r"\$\(.*?\)", "design.hwf.json", command).split(">")[0])
    args = build_parser().parse_args(words[1:])
    assert args.command in ("check", "test")


def test_the_pre_commit_config_names_the_shipped_hooks():
    config = yaml.safe_load(snippet("pre-commit"))
    manifest = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    (repo,) = config["repos"]
    assert [hook["id"] for hook in repo["hooks"]] == [hook["id"] for hook in manifest]
