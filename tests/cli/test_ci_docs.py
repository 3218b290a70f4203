"""The README's "In CI" snippets say what works: the workflow's `hwf` commands parse,
and the pre-commit config names hooks the repository ships."""

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
