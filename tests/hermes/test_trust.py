"""The trust gate, open and closed, through Hermes' `make_plugin_llm_for_test`.

The LLM's calls are recorded: a node's `model` reaches it only when
`plugins.entries.visual-workflow.llm.allow_model_override` is true in the home's
config.yaml; a closed gate with a node model never sends one; a trust error from
the host is a failed attempt that the run records.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from conftest import gate_config
from designs import one_agent

from hwf_lsp.hermes.engine import Workflows
from hwf_lsp.hermes.host_seams import PluginLlmSeam
from hwf_lsp.rules.model_gate import PLUGIN_NAME
from hwf_lsp.workflow.trust import read_model_gate


class Recorder:
    """The host's LLM caller (`sync_caller`), recording each call; answers `reply`."""

    def __init__(self, reply: str = "42") -> None:
        self.reply = reply
        self.calls: list[dict[str, Any]] = []

    def __call__(self, **kwargs: Any) -> tuple[str, str, Any]:
        self.calls.append(kwargs)
        message = SimpleNamespace(content=self.reply)
        response = SimpleNamespace(choices=[SimpleNamespace(message=message)], usage=None,
                                   model=kwargs.get("model_override") or "host-default")
        return "fake-provider", response.model, response


class Facade:
    """`ctx.llm` as the plugin sees it, recording the keyword arguments of `complete`."""

    def __init__(self, llm: Any) -> None:
        self.llm = llm
        self.complete_kwargs: list[dict[str, Any]] = []

    def complete(self, messages: list[dict[str, Any]], **kwargs: Any) -> Any:
        self.complete_kwargs.append(kwargs)
        return self.llm.complete(messages, **kwargs)


def host_llm(policy_allows: bool, recorder: Recorder) -> Facade:
    from agent.plugin_llm import _TrustPolicy, make_plugin_llm_for_test

    policy = _TrustPolicy(plugin_id=PLUGIN_NAME, allow_model_override=policy_allows)
    return Facade(make_plugin_llm_for_test(plugin_id=PLUGIN_NAME, policy=policy,
                                           sync_caller=recorder))


def run_solo(home: Path, facade: Facade, **agent_fields: Any) -> dict[str, Any]:
    flows = Workflows(home, PluginLlmSeam(facade))
    flows.designs.save("solo", one_agent(**agent_fields))
    state, _ = flows.run("solo")
    return state


GATES = [
    # config value, host policy, model the LLM gets, run status
    (True, True, "big-model", "completed"),
    (False, True, None, "completed"),
    ("yes", True, None, "completed"),  # only a literal true opens our gate
    (None, True, None, "completed"),
    (True, False, "refused", "failed"),  # host refuses: PluginLlmTrustError = failed attempt
]


@pytest.mark.parametrize(("allow", "policy", "model", "status"), GATES)
def test_model_reaches_the_llm_only_through_an_open_gate(hermes_home: Path, allow: Any,
                                                         policy: bool, model: str | None,
                                                         status: str) -> None:
    if allow is not None:
        (hermes_home / "config.yaml").write_text(gate_config(allow))
    recorder = Recorder()
    facade = host_llm(policy, recorder)
    state = run_solo(hermes_home, facade)
    assert state["status"] == status
    (kwargs,) = facade.complete_kwargs
    assert kwargs["purpose"] == f"workflow:{state['run_id']}:think"
    if model == "refused":
        assert kwargs["model"] == "big-model" and recorder.calls == []
        assert state["attempts"] == {"think": 1}
        assert "PluginLlmTrustError" in state["error"]
        return
    assert ("model" in kwargs) is (model is not None)
    (call,) = recorder.calls
    assert call["model_override"] == model
    assert call["messages"][1]["content"].startswith("Say a number")
    assert state["outputs"]["think"] == "42"


def test_a_failed_attempt_is_recorded_and_retried(hermes_home: Path) -> None:
    (hermes_home / "config.yaml").write_text(gate_config(True))
    facade = host_llm(False, Recorder())
    state = run_solo(hermes_home, facade, retries=1)
    assert state["status"] == "failed" and state["attempts"] == {"think": 2}
    assert [e["event"] for e in state["log"] if e["node"] == "think"] == [
        "attempt-failed", "failed"]
    assert len(facade.complete_kwargs) == 2


def test_allowed_models_limit_the_open_gate(hermes_home: Path) -> None:
    (hermes_home / "config.yaml").write_text(gate_config(True, ["other-model"]))
    recorder = Recorder()
    state = run_solo(hermes_home, host_llm(True, recorder))
    assert state["status"] == "completed" and recorder.calls[0]["model_override"] is None


def test_structured_answers_are_kept(hermes_home: Path) -> None:
    state = run_solo(hermes_home, host_llm(True, Recorder(json.dumps({"structured": [1, 2]}))))
    assert state["outputs"]["think"] == [1, 2]


CONFIGS = [
    "",
    "plugins: {}\n",
    gate_config(True),
    gate_config(False),
    gate_config(True, ["big-model"]),
    "plugins:\n  entries:\n    visual-workflow:\n      llm: true\n",
    "plugins:\n  entries:\n    other-plugin:\n      llm: {allow_model_override: true}\n",
]


@pytest.mark.parametrize("config", CONFIGS)
def test_hwf_and_hermes_read_the_same_gate(hermes_home: Path, config: str) -> None:
    from agent.plugin_llm import _resolve_trust_policy

    (hermes_home / "config.yaml").write_text(config)
    assert read_model_gate(hermes_home).open is \
        _resolve_trust_policy(PLUGIN_NAME).allow_model_override


def test_slash_run_with_llm_uses_ctx_llm_and_the_gate(hermes_home: Path, manager,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from hermes_cli.plugins import PluginContext, get_plugin_command_handler

    (hermes_home / "config.yaml").write_text(gate_config(False))
    recorder = Recorder("seven")
    facade = host_llm(True, recorder)
    monkeypatch.setattr(PluginContext, "llm", property(lambda self: facade))
    Workflows(hermes_home).designs.save("solo", one_agent())
    text = get_plugin_command_handler("workflow")("run solo --llm")
    assert ": completed" in text.splitlines()[0], text
    assert recorder.calls[0]["model_override"] is None  # closed gate: no model sent
