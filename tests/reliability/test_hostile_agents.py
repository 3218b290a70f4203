"""Issue 13: hostile agents and delivery commands.

Item 9: a command that exits but leaves a child holding its stdout ends its step when it
exits, and the child is killed (before, the step waited for an end of file until it
"timed out", and a delivery that had delivered was recorded `ok: false`).
Item 6: a lone surrogate in an answer is replaced (and the log says so); before, the save
failed with UnicodeEncodeError and the run stayed `running`, every resume the same.
Item 7: NaN and Infinity are refused where they come in; every write is strict JSON.
Low: a huge output is stored cut, with a marker; stdout past the read limit is counted.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from pathlib import Path

import pytest
from hostile import agent_design, alive, hwf, wait_until, write_json

from hwf_lsp.workflow.delivery import Delivery
from hwf_lsp.workflow.runner import Runner
from hwf_lsp.workflow.seams import AgentRequest, CommandAgentSeam
from hwf_lsp.workflow.stores import DesignStore, RunStore

DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024  # docs: the default cap of a stored output
LEAVES_A_CHILD = "sleep 30 & echo $! > {pidfile}; {rest}"


def _request() -> AgentRequest:
    return AgentRequest(prompt="p", context="{}", profile=None, timeout_minutes=None,
                        correlation_id="workflow:abcdef:a")


def _child(pidfile: Path) -> int:
    return int(wait_until(lambda: pidfile.exists() and pidfile.read_text().strip(), 5,
                          "the background child's pid"))


@pytest.mark.timeout(60)
def test_an_agent_that_leaves_a_child_holding_stdout_ends_when_it_exits(
        tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    script = LEAVES_A_CHILD.format(pidfile=pidfile, rest='echo \'{"output": "hi"}\'')
    seam = CommandAgentSeam(["sh", "-c", script], default_timeout_s=10)
    started = time.monotonic()
    assert seam.perform(_request()) == {"output": "hi"}
    took = time.monotonic() - started
    assert took < 5, f"the step waited {took:.1f} s for a child's end of file"
    child = _child(pidfile)
    wait_until(lambda: not alive(child), 5, f"the left-behind child {child} is killed")


# a grandchild in a session of its own (setsid): out of the command's process group,
# still holding its stdout; `env -i` (no environment) in one variant
LEAVES_A_SETSID_GRANDCHILD = ("{env}setsid sh -c 'echo $$ > {pidfile}; exec sleep 30' & "
                              "sleep 0.3; echo '{{\"output\": \"hi\"}}'")


@pytest.mark.timeout(60)
@pytest.mark.parametrize("env", ["", "env -i "], ids=["inherits-env", "clears-env"])
def test_a_setsid_grandchild_holding_stdout_dies_with_its_step(tmp_path: Path, env: str) -> None:
    """Issue 33: a grandchild that left the group with setsid survived its step."""
    pidfile = tmp_path / "grandchild.pid"
    script = LEAVES_A_SETSID_GRANDCHILD.format(env=env, pidfile=pidfile)
    seam = CommandAgentSeam(["sh", "-c", script], default_timeout_s=20)
    started = time.monotonic()
    assert seam.perform(_request()) == {"output": "hi"}
    took = time.monotonic() - started
    grandchild = _child(pidfile)
    wait_until(lambda: not alive(grandchild), 5, f"the setsid grandchild {grandchild} is killed")
    assert took < 10, f"the step waited {took:.1f} s for the grandchild"


@pytest.mark.timeout(60)
def test_a_delivery_that_leaves_a_child_holding_stdout_is_delivered(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    script = LEAVES_A_CHILD.format(pidfile=pidfile, rest="cat > /dev/null; exit 0")
    delivery = Delivery(channel_argv=["sh", "-c", script], timeout_s=10)
    started = time.monotonic()
    receipt = delivery.send(deliver="channel", text="hello", run_id="abcdef", node_id="out",
                            key="abcdef:out", clock=time.time)
    assert receipt["ok"] is True, receipt
    assert time.monotonic() - started < 5
    child = _child(pidfile)
    wait_until(lambda: not alive(child), 5, f"the left-behind child {child} is killed")


# --- item 6: a lone surrogate; item 7: NaN and Infinity; low: output caps -----------------

def _python_agent(code: str) -> str:
    """An agent command: `python -c CODE` (CODE prints the answer)."""
    return shlex.join([sys.executable, "-c", code])


def _strict(path: Path) -> dict:
    """The file as strict JSON in valid UTF-8 (what a JavaScript reader needs)."""
    def refuse(name: str) -> None:
        raise AssertionError(f"{path.name} holds {name}")
    return json.loads(path.read_bytes().decode("utf-8"), parse_constant=refuse)


PRINTS = "import sys; sys.stdin.read(); sys.stdout.write({!r})"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("answer", [
    '{"output": "\\ud83d truncated"}',
    '{"structured": {"text": "cut \\udc00 here", "\\ud800": 1}}',
])
def test_a_lone_surrogate_in_an_answer_is_replaced_and_said(tmp_path: Path,
                                                            answer: str) -> None:
    home = tmp_path / "home"
    design = write_json(tmp_path / "s.hwf.json", agent_design("surrogate"))
    done = hwf("run", str(design), "--agent-command", _python_agent(PRINTS.format(answer)),
               home=home)
    assert done.code == 0, done.text
    (path,) = (home / "workflow-runs").glob("*.json")
    state = _strict(path)
    assert state["status"] == "completed"
    assert "\ufffd" in json.dumps(state["outputs"]["a0"], ensure_ascii=False)
    assert any(e["event"] == "output-repaired" for e in state["log"]), state["log"]


@pytest.mark.timeout(60)
def test_a_lone_surrogate_in_a_response_is_replaced(tmp_path: Path) -> None:
    home = tmp_path / "home"
    runs = RunStore(home / "workflow-runs")
    run_id = Runner(runs).start(agent_design("surrogate"))["run_id"]
    done = hwf("respond", run_id, "--structured", '{"note": "\\udfff"}', home=home)
    assert done.code == 0, done.text
    state = _strict(runs.path(run_id))
    assert state["outputs"]["a0"] == {"note": "\ufffd"}


NON_FINITE = ["NaN", "Infinity", "-Infinity", "1e999"]


@pytest.mark.timeout(60)
@pytest.mark.parametrize("number", NON_FINITE)
def test_an_answer_with_a_non_finite_number_is_a_failed_attempt(tmp_path: Path,
                                                                 number: str) -> None:
    home = tmp_path / "home"
    design = write_json(tmp_path / "n.hwf.json", agent_design("nan"))
    answer = '{"structured": {"score": ' + number + '}}'
    done = hwf("run", str(design), "--agent-command", _python_agent(PRINTS.format(answer)),
               home=home)
    assert done.code == 1, done.text
    (path,) = (home / "workflow-runs").glob("*.json")
    state = _strict(path)
    assert state["status"] == "failed" and "not strict JSON" in state["error"], state["error"]
    assert state["attempts"] == {"a0": 1} and "a0" not in state["outputs"]


@pytest.mark.timeout(60)
def test_respond_refuses_non_finite_numbers_and_changes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    runs = RunStore(home / "workflow-runs")
    run_id = Runner(runs).start(agent_design("nan"))["run_id"]
    before = runs.path(run_id).read_bytes()
    for number in NON_FINITE:
        done = hwf("respond", run_id, "--structured", '{"score": ' + number + '}', home=home)
        assert done.code == 2 and "not strict JSON" in done.stderr, (number, done.text)
    assert runs.path(run_id).read_bytes() == before
    with pytest.raises(ValueError, match="not JSON numbers"):  # the engine, as the server calls it
        Runner(runs).respond(run_id, structured={"score": float("nan")})
    assert runs.path(run_id).read_bytes() == before


def test_every_write_is_strict_json(tmp_path: Path) -> None:
    runs = RunStore(tmp_path / "workflow-runs")
    for value in (float("nan"), float("inf"), -float("inf")):
        with pytest.raises(ValueError, match="NaN"):
            runs.save({"run_id": "abcdef", "x": value})
        with pytest.raises(ValueError, match="NaN"):
            DesignStore(tmp_path / "workflow-designs").save("d", {**agent_design("d"),
                                                                  "x": value})
    assert not list(runs.root.glob("*.json"))


@pytest.mark.timeout(60)
def test_a_huge_output_is_stored_cut_with_a_marker(tmp_path: Path) -> None:
    home = tmp_path / "home"
    design = write_json(tmp_path / "big.hwf.json", agent_design("big"))
    code = ("import sys, json; sys.stdin.read(); "
            "sys.stdout.write(json.dumps({'output': 'x' * 3_000_000}))")
    done = hwf("run", str(design), "--agent-command", _python_agent(code), home=home)
    assert done.code == 0, done.text
    (path,) = (home / "workflow-runs").glob("*.json")
    state = _strict(path)
    output = state["outputs"]["a0"]
    assert len(output.encode()) <= DEFAULT_MAX_OUTPUT_BYTES
    assert output.endswith("-byte limit (HWF_MAX_OUTPUT_BYTES)]") and "3,000,0" in output
    assert any(e["event"] == "output-cut" for e in state["log"])
    assert path.stat().st_size < 3 * DEFAULT_MAX_OUTPUT_BYTES  # not 6 MB


@pytest.mark.timeout(60)
def test_stdout_past_the_read_limit_is_counted_not_kept(tmp_path: Path) -> None:
    code = ("import sys; sys.stdin.read(); chunk = 'y' * 1_000_000\n"
            "for _ in range(40): sys.stdout.write(chunk)")
    seam = CommandAgentSeam([sys.executable, "-c", code], default_timeout_s=30,
                            max_stdout_bytes=2_000_000)
    result = seam.perform(_request())
    assert len(result["output"]) == 2_000_000 and result["output_bytes"] == 40_000_000
    runs = RunStore(tmp_path / "workflow-runs")
    state = Runner(runs, agent=seam, max_output_bytes=4096).start(agent_design("flood"))
    assert state["status"] == "completed"
    assert "40,000,000 bytes" in state["outputs"]["a0"]
    assert len(state["outputs"]["a0"].encode()) <= 4096
