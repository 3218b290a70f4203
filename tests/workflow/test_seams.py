"""Agent seams and delivery: real subprocess agents and channel commands."""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

import pytest

from hwf_lsp.workflow.delivery import Delivery, delivered_ok, render_text
from hwf_lsp.workflow.seams import (
    AgentCancelled,
    AgentFailure,
    AgentRequest,
    CallableAgentSeam,
    CommandAgentSeam,
    agent_seam_from_env,
    result_from_text,
)

AGENTS = Path(__file__).parent / "agents"
AGENT = [sys.executable, str(AGENTS / "agent.py")]
CHANNEL = [sys.executable, str(AGENTS / "channel.py")]


def request(**overrides: object) -> AgentRequest:
    fields = {"prompt": "Summarise", "context": '{"a": 1}', "profile": None,
              "timeout_minutes": None, "correlation_id": "workflow:abcdef:summarise"}
    fields.update(overrides)
    return AgentRequest(**fields)  # type: ignore[arg-type]


def test_json_answer_is_the_result_and_request_is_the_contract() -> None:
    result = CommandAgentSeam([*AGENT, "json"]).perform(request())
    assert result == {"structured": {"echo": request().to_json(), "n": 0}}
    assert "model" not in result["structured"]["echo"]
    with_model = CommandAgentSeam([*AGENT, "json"]).perform(request(model="m1"))
    assert with_model["structured"]["echo"]["model"] == "m1"


def test_plain_text_answer_is_output_stripped() -> None:
    result = CommandAgentSeam([*AGENT, "text"]).perform(request())
    assert result == {"output": "plain answer for workflow:abcdef:summarise"}


def test_non_zero_exit_is_a_failure_with_stderr() -> None:
    with pytest.raises(AgentFailure, match="status 3: agent broke on purpose"):
        CommandAgentSeam([*AGENT, "fail"]).perform(request())


def test_timeout_kills_the_agent() -> None:
    started = time.monotonic()
    with pytest.raises(AgentFailure, match="timed out"):
        CommandAgentSeam([*AGENT, "sleep", "30"], default_timeout_s=0.5).perform(request())
    assert time.monotonic() - started < 15  # the agent sleeps 30 s; measured 0.3-0.6 s


def test_cancel_kills_the_agent() -> None:
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    started = time.monotonic()
    with pytest.raises(AgentCancelled):
        CommandAgentSeam([*AGENT, "sleep", "30"]).perform(request(), cancel_event=cancel)
    assert time.monotonic() - started < 15  # the agent sleeps 30 s; measured 0.3-0.6 s


def test_missing_program_is_a_failure(tmp_path: Path) -> None:
    with pytest.raises(AgentFailure, match="cannot start"):
        CommandAgentSeam([str(tmp_path / "no-such-agent")]).perform(request())


@pytest.mark.parametrize(("text", "expected"), [
    ('{"output": "x"}', {"output": "x"}),
    ('{"structured": 0}', {"structured": 0}),
    ('{"structured": {}, "output": "y", "junk": 1}', {"structured": {}, "output": "y"}),
    ('{"other": 1}', {"output": '{"other": 1}'}),
    ('"just a string"', {"output": '"just a string"'}),
    ("[1, 2]", {"output": "[1, 2]"}),
    ("{broken", {"output": "{broken"}),
    ("\n  hi  \n", {"output": "hi"}),
    ("", {"output": ""}),
])
def test_result_from_text(text: str, expected: dict) -> None:
    assert result_from_text(text) == expected


def test_callable_seam_normalises_and_wraps_errors() -> None:
    assert CallableAgentSeam(lambda r: "hi").perform(request()) == {"output": "hi"}
    assert CallableAgentSeam(lambda r: {"structured": False}).perform(request()) == {
        "structured": False
    }
    with pytest.raises(AgentFailure, match="ZeroDivisionError"):
        CallableAgentSeam(lambda r: 1 / 0).perform(request())
    with pytest.raises(AgentFailure, match="expected a dict"):
        CallableAgentSeam(lambda r: 42).perform(request())


def test_agent_seam_from_env_uses_shlex_never_a_shell() -> None:
    seam = agent_seam_from_env(None, {"HWF_AGENT_COMMAND": "my-agent --flag 'two words'"})
    assert isinstance(seam, CommandAgentSeam)
    assert seam.argv == ["my-agent", "--flag", "two words"]
    assert agent_seam_from_env(None, {}) is None
    assert agent_seam_from_env(None, {"HWF_AGENT_COMMAND": ""}) is None
    assert agent_seam_from_env(["a", "b"], {"HWF_AGENT_COMMAND": "x"}).argv == ["a", "b"]


HOME_AGENT = [sys.executable, "-c", "import os; print(os.environ.get('HERMES_HOME', '<unset>'))"]
"""An agent whose output is the HERMES_HOME it was started with."""


def test_the_agent_command_gets_the_runs_hermes_home(monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path) -> None:
    # `hermes workflow agent` reads its model and trust gate from HERMES_HOME: the run's home,
    # not the one the editor or the shell was started with.
    monkeypatch.setenv("HERMES_HOME", "/somewhere/else")
    home = str(tmp_path / "home")
    assert CommandAgentSeam(HOME_AGENT, hermes_home=home).perform(request()) == {"output": home}
    assert agent_seam_from_env(HOME_AGENT, {}, hermes_home=home).perform(request()) == {"output": home}
    assert CommandAgentSeam(HOME_AGENT).perform(request()) == {"output": "/somewhere/else"}


# --- delivery ---------------------------------------------------------------


def send(delivery: Delivery, deliver: str, target: str | None = None) -> dict:
    return delivery.send(deliver=deliver, text="hello", run_id="abcdef", node_id="out",
                         key="abcdef:out", target=target, clock=lambda: 0.0)


def test_channel_delivery_gets_the_contract_payload(tmp_path: Path) -> None:
    sink = tmp_path / "sink.jsonl"
    receipt = send(Delivery(None, [*CHANNEL, str(sink)]), "channel", "slack:#x")
    assert receipt == {"key": "abcdef:out", "node": "out", "deliver": "channel",
                       "target": "slack:#x", "ok": True, "at": "1970-01-01T00:00:00.000Z"}
    assert json.loads(sink.read_text()) == {"target": "slack:#x", "text": "hello",
                                            "run_id": "abcdef", "node_id": "out",
                                            "key": "abcdef:out"}


@pytest.mark.parametrize(("delivery_factory", "deliver", "error"), [
    (lambda sink: Delivery(None, [*CHANNEL, sink, "5"]), "channel", "status 5: channel down"),
    (lambda sink: Delivery(None, None), "channel", "no channel command configured"),
    (lambda sink: Delivery(None, None), "notification", "no notification sink configured"),
    (lambda sink: Delivery(lambda t: 1 / 0, None), "notification", "ZeroDivisionError"),
])
def test_failed_deliveries_are_receipts(tmp_path: Path, delivery_factory, deliver, error) -> None:
    receipt = send(delivery_factory(str(tmp_path / "sink")), deliver, "a:b")
    assert receipt["ok"] is False
    assert error in receipt["error"]


def test_notification_and_receipt_lookup() -> None:
    seen: list[str] = []
    receipt = send(Delivery(seen.append, None), "notification")
    assert seen == ["hello"] and receipt["ok"] is True and "target" not in receipt
    assert delivered_ok({"deliveries": [receipt]}, "abcdef:out")
    assert not delivered_ok({"deliveries": [{**receipt, "ok": False}]}, "abcdef:out")


def test_render_text() -> None:
    assert render_text({"a": "only"}) == "only"
    assert json.loads(render_text({"a": 1, "b": "x"})) == {"a": 1, "b": "x"}
