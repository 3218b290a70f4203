"""`/workflow` (through Hermes' plugin command registry) and `hermes workflow ...` (the CLI)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import HERMES, HWF, hermes_env
from designs import review

from hwf_lsp.hermes.engine import Workflows
from hwf_lsp.hermes.prompts import cron_prompt


@pytest.fixture
def slash(manager):
    from hermes_cli.plugins import get_plugin_command_handler, resolve_plugin_command_result

    handler = get_plugin_command_handler("workflow")
    assert handler is not None
    return lambda raw: resolve_plugin_command_result(handler(raw))


def test_slash_list_run_respond_answer_status(slash, hermes_home: Path) -> None:
    flows = Workflows(hermes_home)
    assert "no designs yet" in slash("list")
    flows.designs.save("review", review())
    assert "review  4 nodes" in slash("list")

    started = slash("run review")
    first = started.splitlines()[0]
    assert first.startswith("run ") and first.endswith("of review: awaiting_agent (0/3 steps finished)"), started
    run_id = first.split()[1]
    assert f"/workflow respond {run_id} TEXT" in started
    responded = slash(f"respond {run_id} the notes")
    assert f"/workflow answer {run_id} ship | /workflow answer {run_id} hold" in responded
    assert flows.runs.load(run_id)["outputs"]["draft"] == "the notes"
    answered = slash(f"answer {run_id} ship")
    assert ": completed" in answered.splitlines()[0]
    assert "notification:" in answered
    assert slash(f"status {run_id}").splitlines()[1:] == [
        "  draft (agent): ✓ done", "  gate (approval): ☑ answered ship",
        "  publish (output): ✓ done"]
    assert run_id in slash("status")


SLASH_ERRORS = [
    ("run", "/workflow: the following arguments are required: name"),
    ("run missing", "/workflow run: no design 'missing' in"),
    ("answer abcdef123456 ship", "/workflow answer: no run abcdef123456 in"),
    ("frobnicate", "/workflow: argument command: invalid choice: 'frobnicate'"),
    ('run "unbalanced', "/workflow: No closing quotation"),
]


@pytest.mark.parametrize(("raw", "starts"), SLASH_ERRORS)
def test_slash_errors_are_one_line_with_usage(slash, raw: str, starts: str) -> None:
    text = slash(raw)
    assert text.startswith(starts), text
    assert "Traceback" not in text


def test_slash_cron_prompt_and_help(slash) -> None:
    assert slash("cron-prompt abcdef123456") == cron_prompt("abcdef123456")
    assert slash("") == slash("help") and "/workflow run NAME" in slash("help")


def hermes_workflow(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([HERMES, "workflow", *args], capture_output=True, text=True,
                          timeout=120, env=hermes_env(home))


def test_hermes_workflow_mirrors_hwf(hermes_home: Path, tmp_path: Path) -> None:
    design = tmp_path / "review.hwf.json"
    design.write_text(json.dumps(review()))
    ran = hermes_workflow(hermes_home, "run", str(design))
    assert ran.returncode == 3, ran.stderr  # parked, as hwf says
    run_id = ran.stdout.split()[1]
    assert f"hwf respond {run_id} --output TEXT" in ran.stdout
    env = hermes_env(hermes_home)
    direct = subprocess.run([HWF, "show", run_id, "--json"], capture_output=True, text=True,
                            env=env, timeout=60)
    via_hermes = hermes_workflow(hermes_home, "show", run_id, "--json")
    assert via_hermes.returncode == 0 and json.loads(via_hermes.stdout) == json.loads(direct.stdout)
    assert hermes_workflow(hermes_home, "respond", run_id, "--output", "n").returncode == 3
    done = hermes_workflow(hermes_home, "answer", run_id, "ship")
    assert done.returncode == 0 and f"run {run_id} completed" in done.stdout
    missing = hermes_workflow(hermes_home, "show", "abcdef123456")
    assert missing.returncode == 2 and "not found" in missing.stderr


@pytest.mark.parametrize("run_id", [None, "abcdef123456"])
def test_the_cron_prompt_passes_hermes_cron_scanner(run_id: str | None) -> None:
    from tools.cronjob_tools import _scan_cron_prompt

    args = [HWF, "hermes", "cron-prompt"] + ([run_id] if run_id else [])
    printed = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert printed.returncode == 0 and printed.stdout.strip() == cron_prompt(run_id)
    assert _scan_cron_prompt(printed.stdout) == ""
    assert "workflow_design_respond" in printed.stdout


@pytest.mark.parametrize(("args", "code", "says"), [
    (["--version"], 0, "hwf "),
    ([], 2, "the following arguments are required: COMMAND"),
    (["--help"], 0, "usage: hermes workflow"),
])
def test_hermes_workflow_exits_like_hwf(hermes_home: Path, args: list[str], code: int,
                                        says: str) -> None:
    done = hermes_workflow(hermes_home, *args)
    direct = subprocess.run([HWF, *args], capture_output=True, text=True, timeout=60,
                            env=hermes_env(hermes_home))
    assert (done.returncode, direct.returncode) == (code, code), done.stderr
    assert says in done.stdout + done.stderr
    if args == ["--version"]:
        assert done.stdout == direct.stdout
    if args == ["--help"]:  # hwf's subcommands, then the ones only Hermes has
        for command in ("check", "run", "resume", "answer", "respond", "runs", "show",
                        "cancel", "agent", "cron SCHEDULE"):
            assert f"\n    {command}" in done.stdout or f"\n  {command}" in done.stdout, command


def test_slash_list_skips_bad_entries_with_their_reason(slash, hermes_home: Path) -> None:
    from conftest import BAD_DESIGNS, BAD_RUNS, add_bad_entries

    Workflows(hermes_home).designs.save("review", review())
    add_bad_entries(hermes_home)
    listed = slash("list")
    assert "  review  4 nodes" in listed
    for name, why in BAD_DESIGNS.items():
        line = next(x for x in listed.splitlines() if x.startswith(f"  {name}  "))
        assert "unreadable: " in line and why in line, line
    for run_id in BAD_RUNS:
        assert f"skipped unreadable run file {hermes_home}/workflow-runs/{run_id}.json" in listed
