"""The runner: every step kind, skips, agent results, retries, approvals, delivery, locks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from support.designs import agent, approval, condition, design, output

from hwf_lsp.workflow.delivery import Delivery
from hwf_lsp.workflow.locks import RunBusyError, RunLock
from hwf_lsp.workflow.runner import EXTRA_KEYS, SPEC_KEYS, Runner
from hwf_lsp.workflow.seams import AgentFailure, CallableAgentSeam, CommandAgentSeam
from hwf_lsp.workflow.stores import DesignStore, RunStore

AGENT_SCRIPT = [sys.executable, str(Path(__file__).parent / "agents" / "agent.py")]
CHANNEL_SCRIPT = [sys.executable, str(Path(__file__).parent / "agents" / "channel.py")]
T0 = 1_800_000_000.0


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now


class CountingAgent(CallableAgentSeam):
    """Answers from a table {node: result or exception}; counts calls per node."""

    def __init__(self, answers: dict[str, Any] | None = None) -> None:
        self.answers = answers or {}
        self.calls: list[str] = []
        self.requests: list[Any] = []
        super().__init__(self._answer)

    def _answer(self, request: Any) -> Any:
        node = request.correlation_id.rsplit(":", 1)[1]
        self.calls.append(node)
        self.requests.append(request)
        answer = self.answers.get(node, {"output": f"{node} done"})
        if isinstance(answer, list):  # a script of answers, one per attempt
            answer = answer.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer


@pytest.fixture()
def runs(tmp_path: Path) -> RunStore:
    return RunStore.at_home(tmp_path)


def on_disk(runs: RunStore, state: dict) -> dict:
    loaded = runs.load(state["run_id"])
    assert loaded == state  # what the runner returns is what it persisted
    return loaded


def test_every_step_kind(runs: RunStore) -> None:
    notes: list[str] = []
    events: list[dict] = []
    seam = CountingAgent({"score": {"structured": {"score": 5}}})
    runner = Runner(runs, agent=seam, delivery=Delivery(notes.append, None),
                    on_event=events.append, clock=Clock())
    d = design(
        agent("score"),
        condition("good", "out.score.score > 3", "score"),
        approval("check", "good", options=["ship", "hold"]),
        output("report", "score", "check", deliver="notification"),
    )
    state = runner.start(d)
    assert state["status"] == "awaiting_approval"
    assert state["pending"]["node"] == "check"
    assert state["pending"]["options"] == ["ship", "hold"]
    assert json.loads(state["pending"]["context"]) == {"good": True}
    assert state["cursor"] == 2
    with pytest.raises(ValueError, match="choose one of ship, hold"):
        runner.answer(state["run_id"], "approve")
    state = on_disk(runs, runner.answer(state["run_id"], "ship"))
    assert state["status"] == "completed"
    assert state["outputs"] == {
        "score": {"score": 5}, "good": True, "check": {"choice": "ship"},
        "report": {"score": {"score": 5}, "check": {"choice": "ship"}},
    }
    assert state["answers"] == {"check": "ship"}
    assert state["skipped"] == [] and state["error"] is None and state["pending"] is None
    assert json.loads(notes[0]) == state["outputs"]["report"]
    assert [r["key"] for r in state["deliveries"]] == [f"{state['run_id']}:report"]
    assert [e["node"] for e in events if e["event"] == "step-start"] == [
        "score", "good", "check", "report"
    ]
    assert events[-1] == {"event": "run-status", "run_id": state["run_id"], "status": "completed"}
    assert seam.calls == ["score"]


def test_state_has_exactly_the_spec_keys_and_documented_extras(runs: RunStore) -> None:
    state = Runner(runs, agent=CountingAgent()).start(design(agent("a")))
    assert list(state)[: len(SPEC_KEYS)] == list(SPEC_KEYS)
    assert set(state) == set(SPEC_KEYS) | set(EXTRA_KEYS)
    assert set(runs.load(state["run_id"])) == set(SPEC_KEYS) | set(EXTRA_KEYS)
    assert state["design"] == design(agent("a"))
    assert all(set(entry) == {"at", "node", "event", "detail"} for entry in state["log"])


def test_skip_propagates_three_levels_and_spares_the_sibling_branch(runs: RunStore) -> None:
    seam = CountingAgent({"a": {"structured": {"n": 1}}})
    d = design(
        agent("a"),
        condition("big", "out.a.n > 5", "a"),
        agent("l1", "big"), agent("l2", "l1"), output("l3", "l2"),
        agent("sibling", "a"),
    )
    state = on_disk(runs, Runner(runs, agent=seam).start(d))
    assert state["status"] == "completed"
    assert state["skipped"] == ["big", "l1", "l2", "l3"]
    assert set(state["outputs"]) == {"a", "sibling"}
    assert seam.calls == ["a", "sibling"]
    reasons = {e["node"]: e["detail"] for e in state["log"] if e["event"] == "skipped"}
    assert reasons["big"] == "out.a.n > 5 is false"
    assert reasons["l3"] == "parent 'l2' was skipped"


def test_condition_on_a_missing_path_records_why(runs: RunStore) -> None:
    d = design(agent("a"), condition("c", 'out.a.missing == "x"', "a"))
    state = Runner(runs, agent=CountingAgent({"a": {"structured": {}}})).start(d)
    assert state["skipped"] == ["c"]
    detail = next(e["detail"] for e in state["log"] if e["event"] == "skipped")
    assert "missing" in detail and "is false (" in detail


@pytest.mark.parametrize(("result", "stored"), [
    ({"structured": 0}, 0),
    ({"structured": False}, False),
    ({"structured": {}}, {}),
    ({"structured": None, "output": "x"}, None),
    ({"output": 0}, 0),
    ({"output": ""}, ""),
    ({"output": []}, []),
    ({}, ""),
])
def test_agent_result_by_key_presence(runs: RunStore, result: dict, stored: Any) -> None:
    state = Runner(runs, agent=CountingAgent({"a": result})).start(design(agent("a")))
    assert state["outputs"] == {"a": stored}
    assert runs.load(state["run_id"])["outputs"] == {"a": stored}


def test_retries_exhausted_fails_naming_the_node(runs: RunStore) -> None:
    seam = CountingAgent({"flaky": AgentFailure("boom")})
    d = design(agent("ok"), agent("flaky", "ok", retries=2), agent("after", "flaky"))
    state = on_disk(runs, Runner(runs, agent=seam).start(d))
    assert state["status"] == "failed"
    assert state["attempts"] == {"flaky": 3}
    assert "'flaky'" in state["error"] and "3 attempts" in state["error"]
    assert "boom" in state["error"]
    assert seam.calls == ["ok", "flaky", "flaky", "flaky"]
    assert state["cursor"] == 1 and "after" not in state["outputs"]


def test_a_retry_that_succeeds_keeps_going(runs: RunStore) -> None:
    seam = CountingAgent({"flaky": [AgentFailure("once"), {"output": "fine"}]})
    state = Runner(runs, agent=seam).start(design(agent("flaky", retries=1)))
    assert state["status"] == "completed"
    assert state["attempts"] == {"flaky": 1} and state["outputs"] == {"flaky": "fine"}


def test_zero_retries_fails_on_first_failure(runs: RunStore) -> None:
    seam = CountingAgent({"a": RuntimeError("not an AgentFailure")})
    state = Runner(runs, agent=seam).start(design(agent("a")))
    assert state["status"] == "failed" and state["attempts"] == {"a": 1}
    assert "RuntimeError" in state["error"]


def test_no_seam_parks_and_respond_resumes(runs: RunStore) -> None:
    runner = Runner(runs, clock=Clock())
    d = design(agent("a", profile="writer", timeout_minutes=5), agent("b", "a"))
    state = on_disk(runs, runner.start(d))
    run_id = state["run_id"]
    assert state["status"] == "awaiting_agent"
    assert state["pending"] == {
        "kind": "agent", "node": "a", "prompt": "do a", "context": "{}", "profile": "writer",
        "timeout_minutes": 5, "correlation_id": f"workflow:{run_id}:a",
        "waiting_since": "2027-01-15T08:00:00.000Z",
    }
    assert runner.advance(run_id)["status"] == "awaiting_agent"  # nothing guessed
    with pytest.raises(ValueError, match="not waiting for an approval"):
        runner.answer(run_id, "approve")
    with pytest.raises(ValueError, match="needs an output"):
        runner.respond(run_id)
    state = runner.respond(run_id, structured=0)
    assert state["outputs"] == {"a": 0} and state["pending"]["node"] == "b"
    assert json.loads(state["pending"]["context"]) == {"a": 0}
    state = on_disk(runs, runner.respond(run_id, output="text"))
    assert state["status"] == "completed" and state["outputs"] == {"a": 0, "b": "text"}


def test_resume_with_a_seam_performs_the_parked_step(runs: RunStore) -> None:
    state = Runner(runs).start(design(agent("a")))
    seam = CountingAgent()
    state = Runner(runs, agent=seam).advance(state["run_id"])
    assert state["status"] == "completed" and seam.calls == ["a"]


def test_model_passed_only_when_allowed(runs: RunStore) -> None:
    d = design(agent("a", model="big-model"))
    for allowed, expected in ((False, None), (True, "big-model")):
        seam = CountingAgent()
        Runner(runs, agent=seam, allow_model_override=allowed).start(d)
        assert seam.requests[0].model == expected
        assert ("model" in seam.requests[0].to_json()) is allowed


@pytest.mark.parametrize("allowed", [False, True])
def test_a_parked_step_keeps_the_model_only_when_allowed(runs: RunStore, allowed: bool) -> None:
    """Chat and cron perform a parked step themselves: they read the model from `pending`."""
    state = Runner(runs, allow_model_override=allowed).start(design(agent("a", model="big")))
    assert state["status"] == "awaiting_agent"
    assert state["pending"].get("model") == ("big" if allowed else None)
    assert ("model" in state["pending"]) is allowed


def test_command_agent_seam_end_to_end(runs: RunStore, tmp_path: Path) -> None:
    record = tmp_path / "requests.jsonl"
    seam = CommandAgentSeam([*AGENT_SCRIPT, "record", str(record)])
    d = design(agent("a"), agent("b", "a", model="m"))
    state = Runner(runs, agent=seam).start(d)
    assert state["outputs"] == {"a": "recorded", "b": "recorded"}
    requests = [json.loads(line) for line in record.read_text().splitlines()]
    assert requests[1] == {"prompt": "do b", "context": '{"a": "recorded"}', "profile": None,
                           "timeout_minutes": None,
                           "correlation_id": f"workflow:{state['run_id']}:b"}


def test_approval_reject_prunes_downstream(runs: RunStore) -> None:
    seam = CountingAgent()
    runner = Runner(runs, agent=seam)
    state = runner.start(design(approval("gate", "start"), agent("deploy", "gate")))
    state = runner.answer(state["run_id"], "reject")
    assert state["status"] == "completed"
    assert state["skipped"] == ["gate", "deploy"] and state["answers"] == {"gate": "reject"}
    assert state["outputs"] == {"gate": {"choice": "reject"}}
    assert seam.calls == []


def test_approval_timeout_rejects(runs: RunStore) -> None:
    clock = Clock()
    runner = Runner(runs, agent=CountingAgent(), clock=clock)
    d = design(approval("gate", "start", timeout_minutes=60), agent("deploy", "gate"))
    run_id = runner.start(d)["run_id"]
    clock.now += 59 * 60
    assert runner.advance(run_id)["status"] == "awaiting_approval"
    clock.now += 2 * 60
    state = on_disk(runs, runner.advance(run_id))
    assert state["status"] == "completed"
    assert state["answers"] == {"gate": "reject"} and state["skipped"] == ["gate", "deploy"]
    assert any(e["event"] == "answered" and "60 minutes" in e["detail"] for e in state["log"])


def test_approval_timeout_escalates_once_and_keeps_waiting(runs: RunStore) -> None:
    clock = Clock()
    notes: list[str] = []
    runner = Runner(runs, agent=CountingAgent(), clock=clock,
                    delivery=Delivery(notes.append, None))
    d = design(approval("gate", "start", timeout_minutes=1, on_timeout="escalate"),
               agent("deploy", "gate"))
    run_id = runner.start(d)["run_id"]
    clock.now += 120
    for _ in range(3):
        state = runner.advance(run_id)
        assert state["status"] == "awaiting_approval"
    assert len(notes) == 1 and "'gate'" in notes[0] and "ok gate?" in notes[0]
    assert [(r["key"], r["ok"]) for r in state["deliveries"]] == [
        (f"{run_id}:gate:escalation", True)
    ]
    state = runner.answer(run_id, "approve")
    assert state["status"] == "completed" and state["outputs"]["deploy"] == "deploy done"
    assert len(notes) == 1


def test_failed_delivery_recorded_and_run_completes(runs: RunStore, tmp_path: Path) -> None:
    sink = tmp_path / "sink"
    d = design(agent("a"), output("to-chat", "a", deliver="channel", target="slack:#c"),
               output("note", "a", deliver="notification"))
    state = on_disk(runs, Runner(runs, agent=CountingAgent(),
                                 delivery=Delivery(None, [*CHANNEL_SCRIPT, str(sink), "7"])
                                 ).start(d))
    assert state["status"] == "completed"
    assert [(r["node"], r["ok"]) for r in state["deliveries"]] == [
        ("to-chat", False), ("note", False)
    ]
    assert "status 7" in state["deliveries"][0]["error"]
    assert state["deliveries"][0]["target"] == "slack:#c"
    assert json.loads(sink.read_text())["key"] == f"{state['run_id']}:to-chat"
    state = Runner(runs, agent=CountingAgent()).start(d)  # no delivery configured at all
    assert state["status"] == "completed"
    assert [r["error"] for r in state["deliveries"]] == [
        "no channel command configured", "no notification sink configured"
    ]


def test_delivery_with_ok_receipt_is_not_sent_again(runs: RunStore, tmp_path: Path) -> None:
    """A crash after the receipt was persisted but before the step ended: no second send."""
    sink = tmp_path / "sink"
    channel = Delivery(None, [*CHANNEL_SCRIPT, str(sink)])
    runner = Runner(runs, agent=CountingAgent(), delivery=channel)
    d = design(agent("a"), output("o", "a", deliver="channel", target="x:y"))
    state = runner.create(d)
    state["deliveries"].append({"key": f"{state['run_id']}:o", "node": "o",
                                "deliver": "channel", "ok": True, "at": "x"})
    runs.save(state)
    state = runner.advance(state["run_id"])
    assert state["status"] == "completed" and not sink.exists()


def test_crash_between_delivery_and_persist_redelivers_with_same_key(
    runs: RunStore, tmp_path: Path
) -> None:
    sink = tmp_path / "sink"
    channel = Delivery(None, [*CHANNEL_SCRIPT, str(sink)])

    class Crash(Exception):
        pass

    def crash_after_delivery(label: str) -> None:
        if label == "after-delivery":
            raise Crash

    d = design(agent("a"), output("o", "a", deliver="channel", target="x:y"))
    run_id = Runner(runs, agent=CountingAgent()).create(d)["run_id"]
    with pytest.raises(Crash):
        Runner(runs, agent=CountingAgent(), delivery=channel,
               checkpoint=crash_after_delivery).advance(run_id)
    assert runs.load(run_id)["deliveries"] == []
    state = Runner(runs, agent=CountingAgent(), delivery=channel).advance(run_id)
    keys = [json.loads(line)["key"] for line in sink.read_text().splitlines()]
    assert keys == [f"{run_id}:o", f"{run_id}:o"]
    assert state["status"] == "completed" and len(state["deliveries"]) == 1


def test_second_runner_gets_run_busy(runs: RunStore) -> None:
    run_id = Runner(runs).create(design(agent("a")))["run_id"]
    with RunLock(runs.root, run_id):
        with pytest.raises(RunBusyError, match=f"run {run_id} is busy"):
            Runner(runs, agent=CountingAgent()).advance(run_id)
    assert Runner(runs, agent=CountingAgent()).advance(run_id)["status"] == "completed"


def test_concurrent_runners_never_lose_an_update(runs: RunStore) -> None:
    gate = threading.Event()

    def slow(request: Any) -> str:
        gate.wait(5)
        return "slow"

    run_id = Runner(runs).create(design(agent("a")))["run_id"]
    results: list[Any] = []
    first = threading.Thread(
        target=lambda: results.append(Runner(runs, agent=CallableAgentSeam(slow)).advance(run_id))
    )
    first.start()
    time.sleep(0.2)
    with pytest.raises(RunBusyError):
        Runner(runs, agent=CountingAgent()).advance(run_id)
    gate.set()
    first.join()
    assert results[0]["outputs"] == {"a": "slow"} == runs.load(run_id)["outputs"]


def test_cancel_parked_running_and_busy(runs: RunStore) -> None:
    runner = Runner(runs)
    run_id = runner.start(design(agent("a")))["run_id"]
    state = on_disk(runs, runner.cancel(run_id))
    assert state["status"] == "cancelled" and state["pending"] is None
    assert runner.advance(run_id)["status"] == "cancelled"

    cancel = threading.Event()
    seam = CountingAgent({"a": {"output": 1}})
    seam.fn = lambda request: (cancel.set(), "x")[1]  # cancel arrives while step a runs
    state = Runner(runs, agent=seam, cancel_event=cancel).start(design(agent("a"), agent("b")))
    assert state["status"] == "cancelled" and state["outputs"] == {"a": "x"}

    run_id = Runner(runs).create(design(agent("a")))["run_id"]
    with RunLock(runs.root, run_id):
        assert Runner(runs).cancel(run_id)["status"] == "running"  # requested, not done
    state = Runner(runs, agent=CountingAgent()).advance(run_id)
    assert state["status"] == "cancelled" and state["outputs"] == {}


def test_designs_with_defects_cannot_start(runs: RunStore) -> None:
    broken = design({"id": "a", "type": "agent"}, {"id": "b", "type": "agent", "after": ["zz"]})
    with pytest.raises(ValueError, match="defect") as err:
        Runner(runs).start(broken)
    assert "cannot run" in str(err.value)
    with pytest.raises(ValueError, match="design name"):
        Runner(runs).start({"nodes": design(agent("a"))["nodes"]})
    assert not runs.root.exists() or list(runs.root.glob("*.json")) == []


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda s: s.update(cursor=-1), "cursor"),
    (lambda s: s.update(status="dancing"), "unknown status"),
    (lambda s: s.update(outputs=[]), "outputs"),
    (lambda s: s.update(status="awaiting_agent", pending=None), "without pending"),
    (lambda s: s.update(cursor=9), "cursor past the plan"),
    (lambda s: s.pop("design"), "no design snapshot"),
])
def test_corrupt_state_is_a_value_error_naming_the_run(runs: RunStore, mutate, message) -> None:
    state = Runner(runs).create(design(agent("a")))
    mutate(state)
    runs.save(state)
    with pytest.raises(ValueError, match=message) as err:
        Runner(runs).advance(state["run_id"])
    assert f"run {state['run_id']}" in str(err.value)


def test_run_without_snapshot_uses_the_design_store(runs: RunStore, tmp_path: Path) -> None:
    designs = DesignStore.at_home(tmp_path)
    designs.save("demo", design(agent("a")))
    state = Runner(runs).create(design(agent("a")))
    del state["design"]  # as a run started by another tool may look
    runs.save(state)
    done = Runner(runs, agent=CountingAgent(), designs=designs).advance(state["run_id"])
    assert done["status"] == "completed"


def test_persistence_overhead_per_step(runs: RunStore, tmp_path: Path) -> None:
    """50 agent steps, fsync on: the time spent saving state, per step (reported with -s),
    against the floor measured beside each save: the same bytes written, fsynced and
    renamed in by hand (so a slow disk or a loaded machine slows both alike)."""
    timings: list[float] = []
    floors: list[float] = []
    original = runs.save
    bare = tmp_path / "bare"
    bare.mkdir()

    def timed_save(state: dict) -> Path:
        started = time.perf_counter()
        try:
            return original(state)
        finally:
            timings.append(time.perf_counter() - started)
            floors.append(bare_write(bare, json.dumps(state).encode()))

    runs.save = timed_save  # type: ignore[method-assign]
    nodes = [agent("s0")] + [agent(f"s{i}", f"s{i - 1}") for i in range(1, 49)]
    state = Runner(runs, agent=CountingAgent()).start(design(*nodes))
    assert state["status"] == "completed" and len(state["outputs"]) == 49
    per_step_ms = sum(timings) / len(state["outputs"]) * 1000
    ordered = sorted(timings)
    print(f"\npersistence: {len(timings)} saves for {len(state['outputs'])} steps, "
          f"{per_step_ms:.2f} ms/step, median save {ordered[len(ordered) // 2] * 1000:.2f} ms, "
          f"max {ordered[-1] * 1000:.2f} ms; bare write+fsync+rename "
          f"{sum(floors) / len(floors) * 1000:.2f} ms each")
    # a ratio, not an absolute bound: fsync alone takes 100s of ms on a busy disk
    assert sum(timings) < 10 * sum(floors), (sum(timings), sum(floors))


def bare_write(directory: Path, data: bytes) -> float:
    """Seconds to write `data` as an atomic save does, by hand: the floor of a save."""
    started = time.perf_counter()
    tmp = directory / ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, directory / "state.json")
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
    return time.perf_counter() - started


CRASH_RUNNER = [sys.executable, str(Path(__file__).parent / "agents" / "crash_runner.py")]
REPO = Path(__file__).resolve().parents[2]


def run_crash_runner(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CRASH_RUNNER, *args], capture_output=True, text=True, cwd=REPO,
                          timeout=60, check=False)


@pytest.mark.parametrize("label,nth", [(label, n) for label in
                                       ("step-start", "before-persist", "after-persist",
                                        "after-delivery") for n in (1, 2)])
def test_kill_9_at_a_crash_point_then_resume(tmp_path: Path, label: str, nth: int) -> None:
    """The state always parses; resume ends with the uninterrupted outputs; every key sent."""
    clean_home = tmp_path / "clean"
    run_crash_runner(str(clean_home), "start", "none", "0")
    clean_id = next(iter(RunStore.at_home(clean_home).recent()))["run_id"]
    expected = json.loads(run_crash_runner(str(clean_home), clean_id).stdout)

    home = tmp_path / "crashed"
    crashed = run_crash_runner(str(home), "start", label, str(nth))
    assert crashed.returncode == -9
    run_id = crashed.stdout.split()[0]
    runs = RunStore.at_home(home)
    assert runs.load(run_id)["status"] == "running"  # parses, mid-run
    resumed = run_crash_runner(str(home), run_id)
    assert json.loads(resumed.stdout) == expected
    keys = {json.loads(line)["key"] for line in (home / "sink.jsonl").read_text().splitlines()}
    assert keys == {f"{run_id}:s1", f"{run_id}:s3"}
    assert not [p for p in runs.root.iterdir() if p.name.startswith(".tmp-")]


# --- the before_step hook (the debugger stops there) --------------------------------


def test_before_step_sees_each_step_that_runs_in_order_and_may_pin_an_upstream_output(
        runs: RunStore) -> None:
    """Called before every step that runs (not for one passed over); a value the hook puts
    in `outputs` is what the next steps read, and is persisted with the step."""
    seen: list[tuple[str, list[str]]] = []

    def hook(state: dict, node: dict) -> None:
        seen.append((node["id"], sorted(state["outputs"])))
        if node["id"] == "out":
            state["outputs"]["work"] = "pinned"

    runner = Runner(runs, agent=CountingAgent(), before_step=hook)
    state = runner.start(design(agent(), agent("more", "work"), output("out", "more", "work")))
    assert seen == [("work", []), ("more", ["work"]), ("out", ["more", "work"])]
    assert state["outputs"]["out"] == {"more": "more done", "work": "pinned"}
    assert runs.load(state["run_id"])["outputs"]["work"] == "pinned"


def test_an_interrupt_set_in_before_step_stops_the_run_resumable_before_that_node(
        runs: RunStore) -> None:
    from hwf_lsp.rules.run_facts import was_interrupted
    from hwf_lsp.workflow.interrupts import Interrupt

    interrupt = Interrupt()
    agent_seam = CountingAgent()

    def hook(state: dict, node: dict) -> None:
        if node["id"] == "more":
            interrupt.interrupt("the debugger disconnected")

    runner = Runner(runs, agent=agent_seam, interrupt=interrupt, before_step=hook)
    state = runner.start(design(agent(), agent("more", "work")))
    assert was_interrupted(state) and state["log"][-1]["node"] == "more"
    assert agent_seam.calls == ["work"]
    done = Runner(runs, agent=agent_seam).advance(state["run_id"])
    assert done["status"] == "completed" and agent_seam.calls == ["work", "more"]


def test_a_cancel_asked_while_before_step_waits_is_honoured_before_the_node(
        runs: RunStore) -> None:
    cancel = threading.Event()
    agent_seam = CountingAgent()
    runner = Runner(runs, agent=agent_seam, cancel_event=cancel,
                    before_step=lambda state, node: cancel.set())
    state = runner.start(design(agent()))
    assert state["status"] == "cancelled" and agent_seam.calls == []
