"""`hwf run/resume/answer/respond/runs/show/cancel` through real processes (contract 4).

Every command is its own process, so "park here, resume there" is tested for real:
the only thing shared between two commands is $HERMES_HOME on disk.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time

import pytest
from hwf_cli_helpers import AGENT, CHANNEL, EXAMPLES, ROOT, started_run_id

from hwf_lsp.workflow.locks import RunLock
from hwf_lsp.workflow.runner import EXTRA_KEYS, RERUN_KEYS, SPEC_KEYS

REVIEW = "examples/review-flow.hwf.json"
HELLO = "examples/hello-world.hwf.json"


def park_review_at_approval(hwf, **env) -> str:
    result = hwf("run", REVIEW, "--agent-command", AGENT, env=env or None)
    assert result.code == 3, result.stdout + result.stderr
    return started_run_id(result)


def test_park_and_resume_across_processes(hwf, tmp_path):
    channel_log = tmp_path / "channel.log"
    run_id = park_review_at_approval(hwf)
    state = hwf.state(run_id)
    assert state["status"] == "awaiting_approval"
    assert state["pending"]["node"] == "sign-off"
    assert state["pending"]["options"] == ["approve", "reject"]
    assert state["outputs"]["review"] == {"verdict": "approve", "score": 8,
                                          "issues": ["'Fixes' lists one item twice"]}
    parked = hwf("run", REVIEW, "--agent-command", AGENT).stdout  # the printed next step
    assert "next: hwf answer" in parked and "approve --agent-command" in parked

    shown = hwf("show", run_id)
    assert shown.code == 0 and "awaiting_approval" in shown.stdout
    assert f"hwf answer {run_id} approve" in shown.stdout

    answered = hwf("answer", run_id, "approve", "--delivery-command", CHANNEL,
                   env={"HWF_CHANNEL_LOG": str(channel_log)})
    assert answered.code == 0, answered.stderr
    assert f"run {run_id} completed" in answered.stdout
    state = hwf.state(run_id)
    assert state["status"] == "completed" and state["answers"] == {"sign-off": "approve"}
    messages = [json.loads(x) for x in channel_log.read_text().splitlines()]
    assert [(m["target"], m["key"]) for m in messages] == [("slack:#reviews",
                                                            f"{run_id}:publish")]
    assert state["deliveries"][0]["ok"] is True


def test_the_agent_command_runs_with_the_hermes_home_of_the_run(hwf, tmp_path):
    home = tmp_path / "other-home"
    agent = f"{sys.executable} -c \"import os; print(os.environ['HERMES_HOME'])\""
    result = hwf("run", HELLO, "--agent-command", agent, "--hermes-home", str(home))
    assert result.code == 0, result.stdout + result.stderr
    run = json.loads((home / "workflow-runs" / f"{started_run_id(result)}.json").read_text())
    assert run["outputs"]["greet"] == str(home)  # not $HERMES_HOME (hwf.home)


def test_agent_step_parks_then_respond_output(hwf):
    result = hwf("run", HELLO)
    assert result.code == 3
    run_id = started_run_id(result)
    assert f"hwf respond {run_id} --output TEXT" in result.stdout
    pending = hwf.state(run_id)["pending"]
    assert pending["kind"] == "agent" and pending["node"] == "greet"
    assert pending["correlation_id"] == f"workflow:{run_id}:greet"

    responded = hwf("respond", run_id, "--output", "Hello, team!")
    assert responded.code == 0, responded.stderr
    assert "[notification] Hello, team!" in responded.stderr  # notifications go to stderr
    assert hwf.state(run_id)["outputs"]["greet"] == "Hello, team!"


def test_respond_structured_low_score_skips_the_branch(hwf):
    run_id = started_run_id(hwf("run", REVIEW))
    assert hwf("respond", run_id, "--output", "the draft").code == 3  # now waits at review
    assert hwf.state(run_id)["pending"]["node"] == "review"
    result = hwf("respond", run_id, "--structured", '{"verdict": "revise", "score": 5}')
    assert result.code == 0, result.stderr
    state = hwf.state(run_id)
    assert state["status"] == "completed"
    assert state["outputs"]["review"] == {"verdict": "revise", "score": 5}
    assert state["skipped"] == ["good-enough", "sign-off", "publish"]


def test_resume_with_an_agent_command_after_parking(hwf):
    run_id = started_run_id(hwf("run", REVIEW))
    assert hwf.state(run_id)["status"] == "awaiting_agent"
    resumed = hwf("resume", run_id, "--agent-command", AGENT)
    assert resumed.code == 3
    assert hwf.state(run_id)["status"] == "awaiting_approval"
    again = hwf("resume", run_id)  # nothing to do until someone answers
    assert again.code == 3 and "waiting at approval 'sign-off'" in again.stdout


def test_agent_command_from_environment_and_retries(hwf, tmp_path):
    calls = tmp_path / "calls.log"
    env = {"HWF_AGENT_COMMAND": AGENT, "HWF_AGENT_CALL_LOG": str(calls), "HWF_AGENT_FAIL": "1"}
    result = hwf("run", REVIEW, env=env)
    assert result.code == 3, result.stdout + result.stderr
    run_id = started_run_id(result)
    assert "retry" in result.stdout
    assert calls.read_text().splitlines() == [f"workflow:{run_id}:draft"] * 2 + [
        f"workflow:{run_id}:review"]
    assert hwf.state(run_id)["attempts"] == {"draft": 1}


def test_agent_failure_past_retries_fails_the_run(hwf):
    result = hwf("run", HELLO, "--agent-command", AGENT, env={"HWF_AGENT_FAIL": "9"})
    assert result.code == 1
    run_id = started_run_id(result)
    state = hwf.state(run_id)
    assert state["status"] == "failed" and "greet" in state["error"]
    assert f"run {run_id} failed" in result.stdout


def test_run_from_here_reuses_upstream(hwf, tmp_path):
    base = park_review_at_approval(hwf)
    calls = tmp_path / "calls.log"
    result = hwf("run", REVIEW, "--from", "review", "--base-run", base, "--agent-command",
                 AGENT, env={"HWF_AGENT_CALL_LOG": str(calls)})
    assert result.code == 3, result.stderr
    assert f"reusing 1 step result of run {base}" in result.stdout
    run_id = started_run_id(result)
    assert calls.read_text().splitlines() == [f"workflow:{run_id}:review"]
    state = hwf.state(run_id)
    assert state["base_run"] == base and state["from_node"] == "review"
    assert state["outputs"]["draft"] == hwf.state(base)["outputs"]["draft"]


def test_design_by_store_name_and_hermes_home_flag(hwf, tmp_path):
    other_home = tmp_path / "other-home"
    (other_home / "workflow-designs").mkdir(parents=True)
    shutil.copy(EXAMPLES / "review-flow.hwf.json",
                other_home / "workflow-designs" / "review-flow.json")
    result = hwf("run", "review-flow", "--hermes-home", str(other_home))
    assert result.code == 3
    run_id = started_run_id(result)
    assert (other_home / "workflow-runs" / f"{run_id}.json").exists()
    assert not hwf.run_file(run_id).exists()
    listed = hwf("runs", "--json", "--hermes-home", str(other_home)).json()
    assert [r["run_id"] for r in listed] == [run_id]


def test_runs_and_show_json(hwf):
    first = park_review_at_approval(hwf)
    second = started_run_id(hwf("run", HELLO))
    runs = hwf("runs", "--json")
    assert runs.code == 0
    listed = runs.json()
    assert [r["run_id"] for r in listed] == [second, first]  # newest first
    for summary in listed:
        assert {"run_id", "name", "status", "cursor", "steps", "pending", "error",
                "updated_at", "path"} <= set(summary)
    assert listed[1]["status"] == "awaiting_approval" and listed[1]["steps"] == 5
    table = hwf("runs").stdout
    assert first in table and "approval sign-off" in table
    shown = hwf("show", first, "--json")
    assert shown.json() == hwf.state(first)


def test_state_has_spec_keys_and_only_documented_extras(hwf):
    plain = park_review_at_approval(hwf)
    rerun = started_run_id(hwf("run", REVIEW, "--from", "review", "--agent-command", AGENT))
    for run_id, allowed in ((plain, set(SPEC_KEYS) | set(EXTRA_KEYS)),
                            (rerun, set(SPEC_KEYS) | set(EXTRA_KEYS) | set(RERUN_KEYS))):
        state = hwf.state(run_id)
        assert set(SPEC_KEYS) <= set(state), run_id
        assert set(state) <= allowed, set(state) - allowed


def test_cancel(hwf):
    run_id = park_review_at_approval(hwf)
    result = hwf("cancel", run_id)
    assert result.code == 0 and f"run {run_id} cancelled" in result.stdout
    assert hwf.state(run_id)["status"] == "cancelled"
    again = hwf("cancel", run_id)
    assert again.code == 0 and "already finished (cancelled)" in again.stdout
    assert hwf("resume", run_id).code == 1  # a cancelled run did not complete


def test_busy_run_is_a_clear_error(hwf):
    run_id = park_review_at_approval(hwf)
    lock = RunLock(hwf.home / "workflow-runs", run_id).acquire()
    try:
        result = hwf("answer", run_id, "approve")
    finally:
        lock.release()
    assert result.code == 4
    assert result.stderr.strip().splitlines()[-1].startswith(
        f"hwf answer: error: run {run_id} is busy")
    assert hwf.state(run_id)["status"] == "awaiting_approval"  # nothing lost
    assert hwf("answer", run_id, "approve").code == 0


BAD_DESIGN = '{"name": "bad", "nodes": [{"id": "t", "type": "trigger"}, ' \
             '{"id": "a", "type": "agent", "after": ["t"]}]}'

# (args, exit code, stderr part); "<id>" is replaced by a run parked at its approval
ERROR_CASES = [
    (["show", "xyz"], 2, "invalid run id 'xyz'"),
    (["show", "abcdef12"], 2, "run abcdef12 not found"),
    (["answer", "abcdef12", "approve"], 2, "run abcdef12 not found"),
    (["answer", "<id>", "maybe"], 2, "'maybe' is not an option"),
    (["respond", "<id>", "--output", "x"], 2, "not waiting for an agent"),
    (["respond", "<id>", "--structured", "{nope"], 2, "--structured is not valid JSON"),
    (["respond", "<id>"], 2, "one of the arguments --output --structured is required"),
    (["run", "examples/nope.hwf.json"], 2, "no design file 'examples/nope.hwf.json'"),
    (["run", "no-such-design"], 2, "no design named 'no-such-design'"),
    (["run", "<bad-design>"], 1, "a/prompt: an agent node needs a prompt"),
    (["run", REVIEW, "--base-run", "abcdef12"], 2, "--base-run only makes sense with --from"),
    (["run", REVIEW, "--from", "nowhere"], 2, "cannot run from 'nowhere'"),
    (["run", REVIEW, "--agent-command", "'unbalanced"], 2, "--agent-command"),
    (["frobnicate"], 2, "invalid choice"),
]


@pytest.mark.parametrize("args,code,stderr_part", ERROR_CASES,
                         ids=[" ".join(c[0]) for c in ERROR_CASES])
def test_errors_are_one_clear_line(hwf, tmp_path, args, code, stderr_part):
    if "<id>" in args:
        run_id = park_review_at_approval(hwf)
        args = [run_id if a == "<id>" else a for a in args]
    if "<bad-design>" in args:
        bad = tmp_path / "bad.hwf.json"
        bad.write_text(BAD_DESIGN)
        args = [str(bad) if a == "<bad-design>" else a for a in args]
    result = hwf(*args)
    assert result.code == code, result.stdout + result.stderr
    assert stderr_part in result.stderr
    assert "Traceback" not in result.stderr


def test_help_documents_exit_codes_and_examples(hwf):
    result = hwf("--help")
    assert result.code == 0
    for part in ("exit codes:", "3  the run is parked", "4  the run is busy",
                 "hwf answer 3f2a9c01d4e5 approve", "HWF_AGENT_COMMAND"):
        assert part in result.stdout
    assert "exit codes:" in hwf("run", "--help").stdout


def wait_for_file(path, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not (path.exists() and path.read_text()):
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.02)


def test_busy_and_cancel_while_another_process_runs(hwf, tmp_path):
    """A slow `hwf run` holds the run: resume from elsewhere is refused, cancel stops it."""
    calls = tmp_path / "calls.log"
    env = {**hwf.env, "HWF_AGENT_SLEEP": "3", "HWF_AGENT_CALL_LOG": str(calls)}
    runner = subprocess.Popen(
        [sys.executable, "-m", "hwf_lsp.cli", "run", REVIEW, "--agent-command", AGENT],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        run_id = re.match(r"run ([0-9a-f]+) ", runner.stdout.readline()).group(1)
        wait_for_file(calls)  # the agent is working: the runner holds the run's lock
        busy = hwf("resume", run_id)
        assert busy.code == 4, busy.stdout + busy.stderr
        assert f"run {run_id} is busy" in busy.stderr
        cancelled = hwf("cancel", run_id)
        assert cancelled.code == 0
        # the runner stops its agent at once; cancel waits for that and says so
        assert f"run {run_id} cancelled" in cancelled.stdout, cancelled.stdout
        rest, _ = runner.communicate(timeout=30)
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.communicate()
    assert runner.returncode == 1, rest
    assert f"run {run_id} is cancelled" in rest
    state = hwf.state(run_id)
    assert state["status"] == "cancelled"
    assert "review" not in state["outputs"]  # stopped between steps, after draft at most


def test_corrupt_run_file_is_reported_not_fatal(hwf):
    good = park_review_at_approval(hwf)
    (hwf.home / "workflow-runs" / "abcdef123456.json").write_text('{"run_id": "abcdef1')
    listed = hwf("runs", "--json")
    assert listed.code == 0
    assert [r["run_id"] for r in listed.json()] == [good]
    assert "skipping unreadable run file" in listed.stderr
    shown = hwf("show", "abcdef123456")
    assert shown.code == 2 and "run abcdef123456 is corrupt" in shown.stderr
    assert "Traceback" not in shown.stderr


@pytest.mark.parametrize("on_timeout,code,status", [("escalate", 3, "awaiting_approval"),
                                                     ("reject", 0, "completed")])
def test_resume_past_an_approval_deadline(hwf, tmp_path, on_timeout, code, status):
    design = json.loads((EXAMPLES / "review-flow.hwf.json").read_text())
    for node in design["nodes"]:
        if node["id"] == "sign-off":
            node["on_timeout"] = on_timeout
    path = tmp_path / "review-flow.hwf.json"
    path.write_text(json.dumps(design))
    run_id = started_run_id(hwf("run", str(path), "--agent-command", AGENT))
    state = hwf.state(run_id)
    state["pending"]["waiting_since"] = "2020-01-01T00:00:00.000Z"  # long past 1440 minutes
    hwf.run_file(run_id).write_text(json.dumps(state))
    result = hwf("resume", run_id)
    assert result.code == code, result.stdout + result.stderr
    state = hwf.state(run_id)
    assert state["status"] == status
    if on_timeout == "escalate":
        assert "[notification] Approval 'sign-off'" in result.stderr
        assert hwf("resume", run_id).stderr.count("[notification]") == 0  # only once
    else:
        assert state["answers"] == {"sign-off": "reject"}
        assert state["skipped"] == ["sign-off", "publish"]


def test_run_without_design_snapshot_uses_the_stored_design(hwf):
    """A run the canvas started may carry no snapshot: show and answer use the stored design."""
    run_id = park_review_at_approval(hwf)
    state = hwf.state(run_id)
    design = state.pop("design")
    (hwf.home / "workflow-designs").mkdir(parents=True)
    (hwf.home / "workflow-designs" / "review-flow.json").write_text(json.dumps(design))
    hwf.run_file(run_id).write_text(json.dumps(state))
    shown = hwf("show", run_id)
    assert "#4 sign-off" in shown.stdout and "waiting" in shown.stdout
    assert hwf("runs", "--json").json()[0]["steps"] == 5
    answered = hwf("answer", run_id, "approve")
    assert answered.code == 0, answered.stderr
    assert hwf.state(run_id)["status"] == "completed"


def test_json_output_survives_an_ascii_terminal(hwf):
    result = hwf("check", "--format", "json", "examples/broken.hwf.json",
                 env={"PYTHONIOENCODING": "ascii"})
    assert result.code == 1
    assert any("→" in d["msg"] for d in result.json()[0]["defects"])


def test_a_failed_delivery_is_reported_on_stderr_and_shown_as_not_delivered(hwf):
    """No channel command: the run completes (exit 0), the command that made the delivery
    says so on stderr with what fixes it, and every listing reads `not delivered`."""
    run_id = park_review_at_approval(hwf)
    answered = hwf("answer", run_id, "approve", "--agent-command", AGENT)
    assert answered.code == 0, answered.stderr
    assert ("hwf: step 'publish' was NOT delivered to slack:#reviews: no channel command "
            "configured; to fix: give a channel command: --delivery-command CMD or "
            "$HWF_DELIVERY_COMMAND") in answered.stderr
    assert f"run {run_id} completed (5/5 steps finished); not delivered: publish" \
        in answered.stdout
    assert "⚠ not delivered" in answered.stdout
    (listed,) = hwf("runs", "--json").json()
    assert (listed["progress"], listed["step_states"][-1]["status"]) == ("5/5", "not delivered")
    assert re.search(rf"{run_id}\s+review-flow\s+completed\s+5/5\s", hwf("runs").stdout)


def test_one_progress_convention_for_run_and_runs(hwf):
    """The issue's two counts: `hwf run` waited at #4 with 3 steps finished; `hwf runs`
    says 3/5, the same facts (steps finished / steps)."""
    run_id = park_review_at_approval(hwf)
    assert "#4 sign-off" in hwf("show", run_id).stdout
    assert "(3/5 steps finished)" in hwf("show", run_id).stdout
    assert re.search(rf"{run_id}\s+review-flow\s+awaiting_approval\s+3/5\s",
                     hwf("runs").stdout)


def test_show_step_text_json_and_unknown_step(hwf):
    run_id = park_review_at_approval(hwf)
    text = hwf("show", run_id, "--step", "review")
    assert text.code == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0] == f"step review (agent) of run {run_id} (review-flow, awaiting_approval): ✓ done"
    for part in ("  started: 20", "  ended: 20", "  took: ", "  failed attempts: 0",
                 "  context (what it was given):", '"draft": "echo-agent did:', "  output:",
                 '"verdict": "approve"', "  deliveries: -"):
        assert part in text.stdout, part
    detail = hwf("show", run_id, "--step", "sign-off", "--json").json()
    assert detail["step"]["status"] == "waiting" and detail["step"]["waiting_for"] == "approval"
    assert detail["context"] == hwf.state(run_id)["pending"]["context"]
    assert detail["has_output"] is False
    unknown = hwf("show", run_id, "--step", "start")
    assert unknown.code == 2 and "'start' is not a step of run" in unknown.stderr \
        and "draft, review, good-enough, sign-off, publish" in unknown.stderr
