"""`hwf debug-adapter` driven over stdio by a DAP client: stop before a node, inspect and
edit outputs, step, park and answer, test-case and replay launches (docs/debugging.md)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from support.dap_client import called, hwf, line_of, run_file

GOOD = "a good draft, approved, is posted"


def variables(client, scope_name: str, frame: int = 1) -> dict[str, dict]:
    scopes = client.ok("scopes", {"frameId": frame})["scopes"]
    ref = next(s["variablesReference"] for s in scopes if s["name"].startswith(scope_name))
    return {v["name"]: v for v in client.ok("variables", {"variablesReference": ref})
            ["variables"]}


def children(client, variable: dict) -> dict[str, dict]:
    return {v["name"]: v for v in client.ok(
        "variables", {"variablesReference": variable["variablesReference"]})["variables"]}


def test_stop_before_publish_edit_review_continue_delivers_the_edit(
        design: Path, dap, home: Path, agent_command: str, channel) -> None:
    delivery, sent = channel
    client = dap()
    client.start({"design": str(design), "agentCommand": agent_command,
                  "deliveryCommand": delivery},
                 {str(design): [{"line": line_of(design, '"target": "slack:#reviews"')}]})
    parked = client.wait_event("stopped")  # the sign-off comes first: answered here
    assert parked["reason"] == "pause"
    assert parked["description"] == "waiting for approval: Publish the 2.4 release notes " \
        "to #reviews?"
    assert "Pending approval" in [s["name"] for s in
                                  client.ok("scopes", {"frameId": 1})["scopes"]]
    mark = client.mark()
    assert client.ok("evaluate", {"expression": "answer approve", "context": "repl"})[
        "result"] == "sign-off: answered 'approve'"
    stopped = client.wait_event("stopped", after=mark)
    assert (stopped["reason"], stopped["text"]) == ("breakpoint", "publish")
    frames = client.ok("stackTrace", {"threadId": 1})["stackFrames"]
    assert [f["name"].split(" ")[0] for f in frames] == [
        "publish", "sign-off", "good-enough", "review", "draft", "start"]
    assert frames[0]["source"]["path"] == str(design)
    assert frames[0]["line"] == line_of(design, '"id": "publish"')

    held = run_file(home)  # every surface reads the run file: publish has not started
    assert held["debug"]["stopped_before"] == "publish"
    shown = hwf(home, "show", held["run_id"]).stdout
    assert "not run: the debugger stopped before it" in shown and "running" not in shown.split(
        "publish", 1)[1].splitlines()[0]

    outputs = variables(client, "Outputs")
    review = children(client, outputs["review"])
    assert review["score"]["value"] == "8" and review["verdict"]["value"] == '"approve"'
    collects = children(client, variables(client, "Input of publish")["collects"])
    assert set(collects) == {"sign-off", "draft", "review"}

    edited = client.ok("setVariable", {"variablesReference": outputs["review"][
        "variablesReference"], "name": "verdict", "value": "revise by hand"})
    assert edited["value"] == '"revise by hand"'
    review = children(client, variables(client, "Outputs")["review"])
    assert review["verdict"]["value"] == '"revise by hand"'
    mark = client.mark()
    client.ok("continue", {"threadId": 1})
    assert client.wait_event("exited", after=mark) == {"exitCode": 0}
    client.wait_event("terminated", after=mark)

    run = run_file(home)
    want = {"verdict": "revise by hand", "score": 8, "issues": []}
    assert run["status"] == "completed"
    assert run["outputs"]["publish"]["review"] == want
    delivered = json.loads(sent.read_text(encoding="utf-8").splitlines()[0])
    assert "revise by hand" in delivered["text"]
    assert "stopped_before" not in run["debug"]
    [edit] = run["debug"]["edits"]
    assert (edit["node"], edit["path"], edit["old"], edit["new"]) == (
        "review", ["verdict"], "approve", "revise by hand")
    shown = hwf(home, "show", run["run_id"]).stdout
    assert "debug run: 1 edit by the user" in shown
    assert 'out.review.verdict: "approve" -> "revise by hand"' in shown
    listed = json.loads(hwf(home, "runs", "--json").stdout)
    assert listed[0]["debug"]["edits"] == run["debug"]["edits"]
    assert listed[0]["debug_mark"] == "debug run: 1 edit by the user"
    assert "[debug]" in hwf(home, "runs").stdout


def test_a_whole_output_set_as_json_text_or_plain_text(design: Path, dap, home: Path) -> None:
    client = dap()
    client.start({"design": str(design),
                  "testCase": f"{design.parent / 'review-flow.hwf-test.json'}#{GOOD}"},
                 {str(design): [{"line": line_of(design, '"id": "good-enough"')}]})
    client.wait_event("stopped")
    ref = next(s["variablesReference"] for s in client.ok("scopes", {"frameId": 1})["scopes"]
               if s["name"] == "Outputs")
    client.ok("setVariable", {"variablesReference": ref, "name": "review",
                              "value": '{"verdict": "revise", "score": 3}'})
    client.ok("setVariable", {"variablesReference": ref, "name": "draft", "value": "new text"})
    refused = client.request("setVariable", {"variablesReference": ref, "name": "publish",
                                             "value": "1"})
    assert not refused["success"] and "has no output yet" in refused["message"]
    input_ref = next(s["variablesReference"] for s in client.ok("scopes", {"frameId": 1})[
        "scopes"] if s["name"].startswith("Input of"))
    read_only = client.request("setVariable", {"variablesReference": input_ref,
                                               "name": "expression", "value": "1"})
    assert not read_only["success"] and "read-only" in read_only["message"]
    mark = client.mark()
    client.ok("continue", {"threadId": 1})
    client.wait_event("terminated", after=mark)
    run = run_file(home)
    assert run["outputs"]["draft"] == "new text"
    assert "good-enough" in run["skipped"]  # the edited score (3) decided the condition
    assert [e["node"] for e in run["debug"]["edits"]] == ["review", "draft"]


def test_stop_on_entry_then_next_runs_one_node_at_a_time(design: Path, dap, home: Path) -> None:
    client = dap()
    client.start({"design": str(design), "stopOnEntry": True,
                  "testCase": f"{design.parent / 'review-flow.hwf-test.json'}#{GOOD}"})
    seen = []
    event = client.wait_event("stopped")
    assert event["reason"] == "entry"
    while True:
        seen.append(event["text"])
        mark = client.mark()
        seq = client.send("next", {"threadId": 1})
        name, event = client.wait_any(("stopped", "terminated"), after=mark)
        order = client.arrivals
        answered = order.index(f"response {seq}")
        assert f"event {name}" in order[answered:], order  # the response came first
        if name == "terminated":
            break
        assert event["reason"] == "step", event
        run = run_file(home)
        assert seen[-1] in run["outputs"] or seen[-1] in run["skipped"]  # it ran, one node
        assert event["text"] not in run["outputs"]  # the next one has not
    assert seen == ["draft", "review", "good-enough", "sign-off", "publish"]


def test_a_real_run_parks_at_its_agents_and_is_answered_from_the_console(
        design: Path, dap, home: Path) -> None:
    """No agent command: each agent step parks; `respond` gives its result."""
    client = dap()
    client.start({"design": str(design)})
    event = client.wait_event("stopped")
    assert event["description"] == "waiting for agent 'draft'"
    bad = client.request("continue", {"threadId": 1})
    assert not bad["success"] and "respond" in bad["message"]
    mark = client.mark()
    client.ok("evaluate", {"expression": "respond the notes", "context": "repl"})
    assert client.wait_event("continued", after=mark)
    assert client.wait_event("stopped", after=mark)["description"] == \
        "waiting for agent 'review'"
    mark = client.mark()
    client.ok("evaluate", {"expression": 'respond {"score": 9, "verdict": "approve"}',
                           "context": "repl"})
    assert client.wait_event("stopped", after=mark)["description"].startswith(
        "waiting for approval")
    client.ok("evaluate", {"expression": "set out.draft edited at the park"})
    wrong = client.request("evaluate", {"expression": "answer maybe", "context": "repl"})
    assert not wrong["success"] and "approve, reject" in wrong["message"]
    assert client.ok("evaluate", {"expression": "out.review.score"})["result"] == "9"
    assert client.ok("evaluate", {"expression": "out.review.score >= 7"})["result"] == "true"
    mark = client.mark()
    client.ok("evaluate", {"expression": "answer reject", "context": "repl"})
    client.wait_event("terminated", after=mark)
    run = run_file(home)
    assert (run["status"], run["outputs"]["draft"], run["answers"]) == (
        "completed", "edited at the park", {"sign-off": "reject"})
    assert [(e["old"], e["new"]) for e in run["debug"]["edits"]] == [
        ("the notes", "edited at the park")]


def test_a_test_case_launch_calls_no_agent_and_marks_the_run(
        design: Path, dap, home: Path, calls: Path) -> None:
    client = dap()
    client.start({"design": str(design),
                  "testCase": f"{design.parent / 'review-flow.hwf-test.json'}#{GOOD}"})
    client.wait_event("terminated")
    run = run_file(home)
    assert run["status"] == "completed"
    assert run["outputs"]["review"] == {"verdict": "approve", "score": 8, "issues": []}
    assert run["debug"]["testCase"].endswith(f"#{GOOD}")
    assert run["deliveries"][0]["ok"] is True  # the case's recording delivery: nothing sent
    assert called(calls) == []


def test_replay_of_a_failed_run_calls_no_agent_before_from(
        design: Path, dap, home: Path, calls: Path, agent_command: str) -> None:
    failed = hwf(home, "run", str(design), "--agent-command", agent_command,
                 env={"HWF_TEST_CALLS": str(calls), "HWF_TEST_FAIL": "review"})
    base = run_file(home)
    assert base["status"] == "failed", failed.stdout + failed.stderr
    assert called(calls) == ["draft", "review", "review", "review"]
    calls.unlink()
    for launch in ({"replay": base["run_id"]}, {"replay": base["run_id"], "from": "review"}):
        client = dap()
        client.start({"design": str(design), "agentCommand": agent_command, **launch},
                     {str(design): [{"line": line_of(design, '"id": "review"')}]})
        stopped = client.wait_event("stopped")
        assert stopped["text"] == "review"
        draft = variables(client, "Outputs")["draft"]
        assert draft["value"] == json.dumps(base["outputs"]["draft"])
        mark = client.mark()
        client.ok("continue", {"threadId": 1})
        assert client.wait_event("stopped", after=mark)["reason"] == "pause"  # the sign-off
        assert called(calls) == ["review"]  # the draft was replayed, not performed
        client.request("disconnect")
        client.close()
        calls.unlink()
    runs = [json.loads(p.read_text()) for p in (home / "workflow-runs").glob("*.json")]
    replays = [r for r in runs if r.get("debug")]
    assert len(replays) == 2
    assert all(r["base_run"] == base["run_id"] and r["from_node"] == "review"
               and r["debug"]["replay"] == base["run_id"] for r in replays)


def test_a_design_edited_during_the_session_is_reported_and_not_run(
        design: Path, dap, home: Path, agent_command: str, calls: Path) -> None:
    client = dap()
    client.start({"design": str(design), "agentCommand": agent_command, "stopOnEntry": True})
    assert client.wait_event("stopped")["reason"] == "entry"
    design.write_text(design.read_text().replace("version 2.4", "version 2.5"))
    mark = client.mark()
    client.ok("next", {"threadId": 1})  # draft runs (it started before the edit was seen)
    stopped = client.wait_event("stopped", after=mark)
    assert stopped["reason"] == "exception"
    assert "changed on disk" in stopped["description"]
    important = [e["body"]["output"] for e in client.events[mark:]
                 if e["event"] == "output" and e["body"]["category"] == "important"]
    assert important and "changed on disk" in important[0]
    refused = client.request("continue", {"threadId": 1})
    assert not refused["success"] and "restart the debug session" in refused["message"]
    assert called(calls) == ["draft"]
    assert "review" not in run_file(home)["outputs"]


def test_disconnect_mid_run_leaves_it_resumable(design: Path, dap, home: Path,
                                                agent_command: str) -> None:
    for how in ("disconnect", "stdin closed"):
        client = dap()
        client.start({"design": str(design), "agentCommand": agent_command,
                      "stopOnEntry": True})
        client.wait_event("stopped")
        mark = client.mark()
        client.ok("next", {"threadId": 1})
        assert client.wait_event("stopped", after=mark)["text"] == "review"
        run_id = client.output().split("debug run ")[1].split()[0]
        if how == "disconnect":
            assert client.request("disconnect")["success"]
        assert client.close() == 0
        run = run_file(home, run_id)
        assert run["status"] == "running" and run["log"][-1]["event"] == "interrupted"
        assert run["outputs"].keys() == {"draft"}
        resumed = hwf(home, "resume", run_id, "--agent-command", agent_command)
        assert run_file(home, run_id)["status"] == "awaiting_approval", resumed.stdout
        hwf(home, "answer", run_id, "approve", "--agent-command", agent_command)
        assert run_file(home, run_id)["status"] == "completed"


# console line -> its result, or the words of its error (stopped before `good-enough`)
CONSOLE = [
    ("out.review.score", "8"),
    ("draft", "Features: dark mode. Fixes: login timeout."),
    ("out.review", '{"verdict": "approve", "score": 8, "issues": []}'),
    ("out.review.issues.0", "error: out.review.issues.0: no value in this run"),
    ("out.review.score < 7", "false"),
    ("out.review.nope == 1", "false (out.review: <output> has no key 'nope')"),
    ("set out.review.score 3", "out.review.score: 8 -> 3"),
    ("set out.publish 1", "error: 'publish' has no output yet"),
    ("set out.review.score", "error: usage: set out.<node>[.<path>]"),
    ("answer approve", "error: the run is not waiting for an approval"),
    ("respond x", "error: the run is not waiting for an agent"),
    ("print(1)", "error: 'print(1)': not a command, an output or a condition"),
    ("help", "answer <option>"),
]


def test_console_commands(design: Path, dap) -> None:
    client = dap()
    client.start({"design": str(design),
                  "testCase": f"{design.parent / 'review-flow.hwf-test.json'}#{GOOD}"},
                 {str(design): [{"line": line_of(design, '"id": "good-enough"')}]})
    client.wait_event("stopped")
    for line, want in CONSOLE:
        response = client.request("evaluate", {"expression": line, "context": "repl"})
        got = response["body"]["result"] if response["success"] else \
            f"error: {response['message']}"
        assert got.startswith(want), (line, got)
    status = client.ok("evaluate", {"expression": "status"})["result"]
    assert "awaiting" not in status and ": running (" in status


def wait_for_call(calls: Path, node: str) -> None:
    deadline = time.monotonic() + 30
    while node not in called(calls) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert node in called(calls)


def test_pause_stops_before_the_next_node(design: Path, dap, agent_command: str,
                                          calls: Path) -> None:
    client = dap(HWF_TEST_SLOW="draft", HWF_TEST_SLEEP="1")
    client.start({"design": str(design), "agentCommand": agent_command})
    wait_for_call(calls, "draft")
    client.ok("pause", {"threadId": 1})
    stopped = client.wait_event("stopped")
    assert (stopped["reason"], stopped["text"]) == ("pause", "review")


def test_disconnect_while_an_agent_works_stops_it_and_leaves_the_run_resumable(
        design: Path, dap, home: Path, agent_command: str, calls: Path) -> None:
    client = dap(HWF_TEST_SLOW="draft")
    client.start({"design": str(design), "agentCommand": agent_command})
    wait_for_call(calls, "draft")
    started = time.monotonic()
    assert client.request("disconnect")["success"]
    assert client.close() == 0
    assert time.monotonic() - started < 10  # the agent was stopped, not waited for (30 s)
    run = run_file(home)
    assert run["status"] == "running" and run["log"][-1]["event"] == "interrupted"
    assert run["outputs"] == {} and run.get("attempts") == {}
    hwf(home, "resume", run["run_id"], "--agent-command", agent_command)
    assert run_file(home)["status"] == "awaiting_approval"


def test_terminate_leaves_the_run_resumable_and_says_terminated(
        design: Path, dap, home: Path, agent_command: str) -> None:
    client = dap()
    client.start({"design": str(design), "agentCommand": agent_command, "stopOnEntry": True})
    client.wait_event("stopped")
    mark = client.mark()
    assert client.request("terminate")["success"]
    client.wait_event("terminated", after=mark)
    assert client.request("disconnect")["success"]
    assert client.close() == 0
    run = run_file(home)
    assert run["status"] == "running" and run["log"][-1]["event"] == "interrupted"


def test_a_failed_run_stops_at_its_failure_then_ends(design: Path, dap, home: Path,
                                                     agent_command: str) -> None:
    client = dap(HWF_TEST_FAIL="review")
    client.start({"design": str(design), "agentCommand": agent_command})
    stopped = client.wait_event("stopped")
    assert (stopped["reason"], stopped["text"]) == ("exception", "review")
    assert "failed after 3 attempts" in stopped["description"]
    frames = client.ok("stackTrace", {"threadId": 1})["stackFrames"]
    assert frames[0]["line"] == line_of(design, '"id": "review"')
    assert "draft" in variables(client, "Outputs")
    refused = client.request("evaluate", {"expression": "set out.draft x"})
    assert not refused["success"] and '"replay"' in refused["message"]
    mark = client.mark()
    client.ok("continue", {"threadId": 1})
    assert client.wait_event("exited", after=mark) == {"exitCode": 1}
    client.wait_event("terminated", after=mark)
    assert run_file(home)["status"] == "failed"
