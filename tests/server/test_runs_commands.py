"""Runs from the editor, end to end: start, run from here, answer, respond, errors.

A real hwf-lsp process (pytest-lsp, VS Code capabilities) and the example agent
as a real subprocess that logs every call, so a test can tell which steps ran.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient
from runs_helpers import (
    RunsEnv,
    chain_design,
    change_design,
    configure,
    execute,
    lenses,
    open_design,
)
from support.lsp import CLIENTS, client_fixture

from hwf_lsp.server.features.commands import COMMANDS
from hwf_lsp.workflow.locks import RunLock
from hwf_lsp.workflow.runner import SPEC_KEYS

pytestmark = pytest.mark.asyncio(loop_scope="module")

ENV = RunsEnv("commands")


def _no_runs() -> None:
    shutil.rmtree(ENV.runs_dir, ignore_errors=True)  # each client starts from no runs


client = client_fixture(ENV.config(), ENV.workspace, clients=CLIENTS, before=_no_runs,
                        settings={"agent": {"command": ENV.agent_command()}})


def steps_called(calls: list[str]) -> list[str]:
    """Node ids from the agent's correlation ids `workflow:<run_id>:<node_id>`."""
    return [call.rsplit(":", 1)[1] for call in calls]


async def test_commands_and_lenses_are_advertised(client: LanguageClient):
    caps = client.init_result.capabilities
    assert set(caps.execute_command_provider.commands) >= set(COMMANDS)
    assert caps.code_lens_provider is not None


async def test_start_run_from_unsaved_buffer(client: LanguageClient):
    uri = ENV.uri("unsaved")
    assert not (ENV.workspace / "unsaved.hwf.json").exists()  # only in the editor
    design = chain_design("unsaved-demo", ["draft", "polish"], tail=[
        {"id": "show", "type": "output", "deliver": "notification", "after": ["polish"]}])
    open_design(client, uri, design)
    design["nodes"][1]["prompt"] = "Edited but never saved."
    change_design(client, uri, design, version=2)
    ENV.reset_calls()
    summary = await execute(client, "hwf.startRun", uri)

    assert summary["status"] == "completed", summary
    assert summary["name"] == "unsaved-demo"
    assert [s["status"] for s in summary["step_states"]] == ["done", "done", "done"]
    assert steps_called(ENV.calls()) == ["draft", "polish"]
    state = json.loads(open(summary["path"]).read())
    assert list(state)[: len(SPEC_KEYS)] == list(SPEC_KEYS)
    assert state["design"]["nodes"][1]["prompt"] == "Edited but never saved."
    assert state["outputs"]["draft"].startswith("echo-agent did: Edited but never saved.")
    # the notification delivery shows in the editor
    assert any(state["outputs"]["polish"] in m.message for m in client.messages)
    # progress: begin, a report per step, end
    kinds = [[v.kind for v in values] for values in client.progress_reports.values()]
    assert ["begin", "report", "report", "report", "end"] in kinds
    # `hwf runs` (another process) lists it
    listed = subprocess.run(
        [sys.executable, "-m", "hwf_lsp.cli", "runs", "--json"], capture_output=True, text=True,
        env={**os.environ, "HERMES_HOME": str(ENV.home)}, timeout=30)
    assert listed.returncode == 0, listed.stderr
    cli_row = next(r for r in json.loads(listed.stdout) if r["run_id"] == summary["run_id"])
    assert {k: cli_row[k] for k in ("name", "status", "cursor", "steps", "path")} == {
        k: summary[k] for k in ("name", "status", "cursor", "steps", "path")}


async def test_run_from_here_reuses_upstream_and_warns_when_stale(client: LanguageClient):
    uri = ENV.uri("five-steps")
    ids = ["s1", "s2", "s3", "s4", "s5"]
    design = chain_design("five-steps", ids)
    open_design(client, uri, design)
    ENV.reset_calls()
    base = await execute(client, "hwf.startRun", uri)
    assert base["status"] == "completed" and steps_called(ENV.calls()) == ids

    ENV.reset_calls()
    rerun = await execute(client, "hwf.runFromHere", uri, "s3")
    assert rerun["status"] == "completed", rerun
    assert steps_called(ENV.calls()) == ["s3", "s4", "s5"]
    assert rerun["base_run"] == base["run_id"] and rerun["from_node"] == "s3"
    assert rerun["stale"] == []
    assert [(s["id"], s["status"], s["rerun"]) for s in rerun["step_states"]] == [
        ("s1", "reused", False), ("s2", "reused", False),
        ("s3", "done", True), ("s4", "done", True), ("s5", "done", True)]
    before, after = ENV.load_run(base["run_id"]), ENV.load_run(rerun["run_id"])
    assert {k: after["outputs"][k] for k in ("s1", "s2")} == {
        k: before["outputs"][k] for k in ("s1", "s2")}
    assert not any("stale" in n for n in rerun["notices"])

    # an upstream prompt edited in the editor (unsaved): the reused output may be stale
    design["nodes"][1]["prompt"] = "Do step s1 differently."
    change_design(client, uri, design, version=2)
    warnings_before = len(client.messages)
    ENV.reset_calls()
    stale = await execute(client, "hwf.runFromHere", uri, "s3", base["run_id"])
    assert stale["status"] == "completed" and stale["stale"] == ["s1"]
    assert steps_called(ENV.calls()) == ["s3", "s4", "s5"]
    assert any("output of s1 reused from run" in n and "may be stale" in n
               for n in stale["notices"])
    shown = client.messages[warnings_before:]
    assert any(m.type == types.MessageType.Warning and "may be stale" in m.message for m in shown)


APPROVAL_TAIL = [
    {"id": "gate", "type": "approval", "question": "Ship it?", "options": ["ship", "hold"],
     "after": ["draft"]},
    {"id": "done", "type": "output", "after": ["gate"]},
]


async def test_parked_approval_shows_its_lens_and_the_answer_completes_it(client: LanguageClient):
    uri = ENV.uri("approval")
    text = open_design(client, uri, chain_design("approval-demo", ["draft"], APPROVAL_TAIL))
    parked = await execute(client, "hwf.startRun", uri)
    assert parked["status"] == "awaiting_approval"
    assert parked["pending"]["options"] == ["ship", "hold"]

    lines = text.splitlines()
    gate_line = next(i for i, line in enumerate(lines) if '"id": "gate"' in line) - 1
    found = await lenses(client, uri)
    answer = [lens for lens in found if lens[1] == "Answer…"]
    assert answer == [(gate_line, "Answer…", "hwf.answerApproval", [parked["run_id"]])]
    titles = {lens[1] for lens in found}
    assert {"▶ Start run", "▶ Run from here"} <= titles

    # a choice that is not an option: a clear error, the run still waits
    with pytest.raises(JsonRpcException, match="not an option.*ship, hold"):
        await execute(client, "hwf.answerApproval", parked["run_id"], "maybe")
    # the lens's own arguments (no choice): the server asks, one action per option;
    # dismissing the question leaves the run waiting
    client.choose = None
    dismissed = await execute(client, answer[0][2], *answer[0][3])
    assert dismissed["status"] == "awaiting_approval"
    assert dismissed["notices"] == ["no choice made: approval 'gate' is still waiting"]
    client.choose = "ship"
    done = await execute(client, answer[0][2], *answer[0][3])
    assert [a.title for a in client.asked[-1].actions] == ["ship", "hold"]
    assert done["status"] == "completed", done
    assert ENV.load_run(done["run_id"])["answers"] == {"gate": "ship"}
    assert [(s["id"], s["status"], s.get("answer")) for s in done["step_states"]] == [
        ("draft", "done", None), ("gate", "answered", "ship"), ("done", "done", None)]
    listed = (await execute(client, "hwf.listRuns", {"design": "approval-demo"}))["runs"]
    assert listed[0] == done  # one builder: the list says what the command answered
    found = await lenses(client, uri)
    assert not [lens for lens in found if lens[1] == "Answer…"]


async def test_parked_agent_completes_after_respond(client: LanguageClient):
    await configure(client, {"agent": {"command": []}})  # no seam: agent steps park
    try:
        uri = ENV.uri("respond")
        open_design(client, uri, chain_design("respond-demo", ["ask", "judge"]))
        parked = await execute(client, "hwf.startRun", uri)
        assert parked["status"] == "awaiting_agent" and parked["pending"]["node"] == "ask"
        found = await lenses(client, uri)
        assert [lens[2:] for lens in found if lens[1] == "Respond…"] == [
            ("hwf.respondAgent", [parked["run_id"]])]
        second = await execute(client, "hwf.respondAgent", parked["run_id"], {"output": "hi"})
        assert second["status"] == "awaiting_agent" and second["pending"]["node"] == "judge"
        done = await execute(client, "hwf.respondAgent", parked["run_id"],
                             {"structured": {"score": 0}})
        assert done["status"] == "completed"
        assert ENV.load_run(done["run_id"])["outputs"] == {"ask": "hi", "judge": {"score": 0}}
    finally:
        await configure(client, {"agent": {"command": ENV.agent_command()}})


def check_error(client: LanguageClient, exc: pytest.ExceptionInfo, expected: str) -> None:
    assert expected in str(exc.value), str(exc.value)
    assert any(m.type == types.MessageType.Error and expected in m.message
               for m in client.messages), "no window/showMessage Error"


async def test_errors_are_clear_answers(client: LanguageClient):
    broken = ENV.uri("broken")
    open_design(client, broken, {"name": "broken-demo", "nodes": [
        {"id": "start", "type": "trigger"},
        {"id": "a", "type": "agent", "after": ["start"]},
        {"id": "b", "type": "agent", "prompt": "x", "retries": 9, "after": ["nowhere"]}]})
    with pytest.raises(JsonRpcException) as exc:
        await execute(client, "hwf.startRun", broken)
    check_error(client, exc, "cannot run")
    assert "a/prompt" in str(exc.value) and "b/retries" in str(exc.value)

    with pytest.raises(JsonRpcException) as exc:
        await execute(client, "hwf.resumeRun", "abcdef123456")
    check_error(client, exc, "run abcdef123456 not found")

    uri = ENV.uri("busy")
    open_design(client, uri, chain_design("busy-demo", ["draft"], APPROVAL_TAIL))
    parked = await execute(client, "hwf.startRun", uri)
    with RunLock(ENV.runs_dir, parked["run_id"]):  # another runner holds the run
        with pytest.raises(JsonRpcException) as exc:
            await execute(client, "hwf.answerApproval", parked["run_id"], "ship")
    check_error(client, exc, f"run {parked['run_id']} is busy")

    with pytest.raises(JsonRpcException) as exc:
        await execute(client, "hwf.runFromHere", uri)
    check_error(client, exc, "hwf.runFromHere: missing node_id; arguments: [uri, node_id")

    await configure(client, {"runsEnabled": False})
    try:
        for command, args in [("hwf.startRun", [uri]), ("hwf.resumeRun", [parked["run_id"]]),
                              ("hwf.answerApproval", [parked["run_id"], "ship"]),
                              ("hwf.cancelRun", [parked["run_id"]])]:
            with pytest.raises(JsonRpcException) as exc:
                await execute(client, command, *args)
            check_error(client, exc, "runs are disabled in an untrusted workspace")
        assert await lenses(client, uri) == []
    finally:
        await configure(client, {"runsEnabled": True})
    cancelled = await execute(client, "hwf.cancelRun", parked["run_id"])
    assert cancelled["status"] == "cancelled"
    listed = await execute(client, "hwf.listRuns", {"design": "busy-demo"})
    assert [r["run_id"] for r in listed["runs"]] == [parked["run_id"]]
    assert listed["runs"][0]["status"] == "cancelled"


async def test_failed_step_gets_a_retry_lens_that_reruns_from_it(client: LanguageClient):
    failing = ["env", "HWF_AGENT_FAIL=1", *ENV.agent_command()]  # the first call fails
    await configure(client, {"agent": {"command": failing}})
    try:
        uri = ENV.uri("retry")
        open_design(client, uri, {"name": "retry-demo", "nodes": [
            {"id": "start", "type": "trigger"},
            {"id": "fetch", "type": "agent", "prompt": "Fetch.", "after": ["start"]},
            {"id": "sum", "type": "agent", "prompt": "Sum up.", "after": ["fetch"]}]})
        ENV.reset_calls()
        failed = await execute(client, "hwf.startRun", uri)
        assert failed["status"] == "failed" and "'fetch'" in failed["error"], failed
        assert [s["status"] for s in failed["step_states"]] == ["failed", "not run"]
        retry = [lens for lens in await lenses(client, uri) if lens[1] == "↻ Retry from here"]
        assert [lens[2:] for lens in retry] == [
            ("hwf.runFromHere", [uri, "fetch", failed["run_id"]])]
        again = await execute(client, retry[0][2], *retry[0][3])
        assert again["status"] == "completed" and again["base_run"] == failed["run_id"]
        assert steps_called(ENV.calls()) == ["fetch", "fetch", "sum"]
        assert not [lens for lens in await lenses(client, uri) if lens[1] == "↻ Retry from here"]
    finally:
        await configure(client, {"agent": {"command": ENV.agent_command()}})


async def test_channel_delivery_goes_to_the_configured_command(client: LanguageClient):
    channel_log = ENV.workspace / "channel.log"
    channel_log.unlink(missing_ok=True)
    channel = ["env", f"HWF_CHANNEL_LOG={channel_log}", sys.executable,
               str(ENV.agent_command()[-1]).replace("agents/echo_agent.py",
                                                    "channels/print_channel.py")]
    await configure(client, {"delivery": {"command": channel}})
    try:
        uri = ENV.uri("channel")
        open_design(client, uri, chain_design("channel-demo", ["draft"], [
            {"id": "post", "type": "output", "deliver": "channel", "target": "slack:#x",
             "after": ["draft"], "command": ["touch", str(ENV.workspace / "pwned")]}]))
        done = await execute(client, "hwf.startRun", uri)
        assert done["status"] == "completed"
        sent = [json.loads(line) for line in channel_log.read_text().splitlines()]
        assert [(m["target"], m["key"]) for m in sent] == [
            ("slack:#x", f"{done['run_id']}:post")]
        assert ENV.load_run(done["run_id"])["deliveries"][0]["ok"] is True
        assert not (ENV.workspace / "pwned").exists()  # a design never chooses what runs
    finally:
        await configure(client, {"delivery": {"command": []}})


async def test_the_agent_command_runs_with_the_hermes_home_in_use(client: LanguageClient):
    # hwf.hermesHome names another home than the server's $HERMES_HOME: the agent (e.g.
    # `hermes workflow agent`, which reads its model and gate from HERMES_HOME) gets that home.
    other = ENV.workspace / "other-home"
    agent = [sys.executable, "-c", "import os; print(os.environ['HERMES_HOME'])"]
    await configure(client, {"hermesHome": str(other), "agent": {"command": agent}})
    try:
        uri = ENV.uri("home-check")
        open_design(client, uri, chain_design("home-check", ["draft"]))
        done = await execute(client, "hwf.startRun", uri)
        assert done["status"] == "completed", done
        run = json.loads((other / "workflow-runs" / f"{done['run_id']}.json").read_text())
        assert run["outputs"]["draft"] == str(other) != str(ENV.home)
    finally:
        await configure(client, {"hermesHome": "", "agent": {"command": ENV.agent_command()}})


async def test_failed_delivery_warns_and_reads_not_delivered_everywhere(client: LanguageClient):
    """No channel command configured: the run completes, the editor that ran it shows a
    Warning with the receipt's error and the setting that fixes it, the summary says
    `not delivered` (never `done`), and `hwf.showStep` has the receipt and the output."""
    uri = ENV.uri("undelivered")
    open_design(client, uri, chain_design("undelivered-demo", ["draft"], [
        {"id": "post", "type": "output", "deliver": "channel", "target": "slack:#team",
         "after": ["draft"]}]))
    before = len(client.messages)
    done = await execute(client, "hwf.startRun", uri)
    assert done["status"] == "completed" and done["progress"] == "2/2"
    post = done["step_states"][-1]
    assert (post["status"], post["error"], post["label"]) == (
        "not delivered", "no channel command configured", "⚠ not delivered")
    warnings = [m.message for m in client.messages[before:]
                if m.type == types.MessageType.Warning]
    assert len(warnings) == 1 and "no channel command configured" in warnings[0] \
        and "hwf.delivery.command" in warnings[0], client.messages[before:]
    detail = await execute(client, "hwf.showStep", done["run_id"], "post")
    assert detail["step"] == post and detail["has_output"] and "draft" in detail["output"]
    assert [(r["ok"], r["error"]) for r in detail["deliveries"]] == [
        (False, "no channel command configured")]
    lens_titles = [lens[1] for lens in await lenses(client, uri)]
    assert "⚠ not delivered" in lens_titles and "✓ done" in lens_titles
