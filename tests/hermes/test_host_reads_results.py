"""The host judges every answer right (issue 31, item 1): its own `_detect_tool_failure`
and its own repeated-failure guardrail, never a copy of their logic.

Every answer that `dispatch` returns in these tests is already checked by the host's
failure check (conftest `assert_host_reads_right`); here are the answers a success is
most likely to be misread in: a failed run in a listing, a failed run shown, the words
"error" and "failed" as a design's or a step's content, and a real `hermes -z` turn with
three calls of one tool.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import assert_host_reads_right
from designs import one_agent
from scripted import call, hermes

from hwf_lsp.hermes.engine import Workflows
from hwf_lsp.hermes.results import answer_json
from hwf_lsp.workflow.seams import AgentFailure

WARNING = "Tool loop warning"


class FailingAgent:
    def perform(self, request: Any, **_: Any) -> Any:
        raise AgentFailure("the model is down")


def failed_run(home: Path) -> str:
    flows = Workflows(home, FailingAgent())
    flows.designs.save("solo", one_agent(retries=0))
    state, _ = flows.run("solo")
    assert state["status"] == "failed" and state["error"]
    return state["run_id"]


ANSWERS = [
    {"runs": [{"run_id": "abcdef", "status": "failed", "error": "agent x failed"}]},
    {"run": {"status": "FAILED", "error": "Error: x", "outputs": {"a": "error"}}},
    {"designs": [{"name": "failed", "nodes": None, "error": "is unreadable"}]},
    {"valid": False, "defects": [{"node": "error", "field": "id", "msg": "\"failed\""}]},
    {"design": {"name": "x" * 600, "nodes": [{"id": "Error"}]}},
    {"error": "no run abcdef", "argument": "run_id"},
    {"error": "design 'x' has 1 defect", "argument": "design", "defects": []},
]


@pytest.mark.parametrize("answer", ANSWERS)
def test_an_answer_reads_the_same_and_the_host_judges_it_right(answer: dict) -> None:
    raw = answer_json(answer)
    assert json.loads(raw) == answer  # the same keys and values for every JSON reader
    assert_host_reads_right("workflow_runs", raw, answer)


def test_a_failed_run_listed_and_shown_is_a_success(dispatch, hermes_home: Path) -> None:
    run_id = failed_run(hermes_home)
    (listed,) = dispatch("workflow_runs", {})["runs"]
    assert listed["status"] == "failed" and "the model is down" in listed["error"]
    shown = dispatch("workflow_run_show", {"run_id": run_id})["run"]
    assert shown["status"] == "failed" and shown["error"] == listed["error"]


def test_a_summary_of_a_failed_run_is_read_as_the_failure_it_reports(
        dispatch, hermes_home: Path) -> None:
    run_id = failed_run(hermes_home)
    cancelled = dispatch("workflow_run_cancel", {"run_id": run_id})  # the host flags it
    assert cancelled["status"] == "failed" and cancelled["notices"]


def _tool_messages(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m.get("role") == "tool"]


def _three_calls_then_stop(*run_ids: str) -> Any:
    def script(messages: list[dict[str, Any]]) -> dict[str, Any]:
        done = sum(1 for m in messages if m.get("role") == "tool")
        return (call("workflow_run_show", run_id=run_ids[done]) if done < len(run_ids)
                else {"content": "done"})

    return script


@pytest.mark.timeout(600)
def test_three_successful_calls_in_a_turn_raise_no_repeated_failure_warning(
        fake: Any, hermes_home: Path) -> None:
    run_id = failed_run(hermes_home)  # its state holds "error" and "failed" in its text
    fake.script = _three_calls_then_stop(run_id, run_id, run_id)
    hermes(hermes_home, "-z", "Show me that run three times.")
    shown = _tool_messages(fake.requests[-1])
    assert len(shown) == 3 and all(WARNING not in m for m in shown), shown
    assert all(json.loads(m)["run"]["run_id"] == run_id for m in shown)

    # The same turn with an error each time (three runs that do not exist): it warns.
    fake.script = _three_calls_then_stop("abcdef000001", "abcdef000002", "abcdef000003")
    hermes(hermes_home, "-z", "Show me that run three times.")
    failing = _tool_messages(fake.requests[-1])
    assert WARNING not in failing[0] and "same_tool_failure_warning" in failing[2], failing
