"""`hermes workflow agent` (issue 31, item 3): `hwf run … --agent-command "hermes workflow
agent"` performs an agent step with the user's Hermes model, through the host's PluginLlm,
against a scripted OpenAI-compatible server on 127.0.0.1; the node's `model` reaches the
model only with the trust gate open, and a provider never is asked for."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import HERMES, HWF, hermes_env
from designs import one_agent

from hwf_lsp.hermes.agent_command import run_agent_command
from hwf_lsp.workflow.stores import RunStore

pytestmark = pytest.mark.timeout(600)
AGENT = f"{HERMES} workflow agent"


def with_gate(home: Path, allow: bool) -> None:
    config = json.loads((home / "config.yaml").read_text())
    config["plugins"]["entries"] = {"visual-workflow": {"llm": {"allow_model_override": allow}}}
    (home / "config.yaml").write_text(json.dumps(config))


@pytest.mark.parametrize(("gate_open", "model_sent"), [(False, None), (True, "big-model")])
def test_hwf_run_with_the_hermes_agent_completes_an_agent_step(
        fake: Any, hermes_home: Path, tmp_path: Path, gate_open: bool,
        model_sent: str | None) -> None:
    with_gate(hermes_home, gate_open)
    fake.script = lambda messages: {"content": '{"structured": {"n": 7}}'}
    design = tmp_path / "solo.hwf.json"
    design.write_text(json.dumps(one_agent()))
    done = subprocess.run([HWF, "run", str(design), "--agent-command", AGENT],
                          capture_output=True, text=True, timeout=300, env=hermes_env(hermes_home))
    assert done.returncode == 0, done.stdout + done.stderr
    run_id = done.stdout.split()[1]
    state = RunStore.at_home(hermes_home).load(run_id)
    assert state["status"] == "completed" and state["outputs"]["think"] == {"n": 7}
    (request,) = fake.requests
    assert "Say a number" in json.dumps(request["messages"])
    assert request["model"] == (model_sent or fake.model)


class RecordingLlm:
    """Stands in for ctx.llm where only the arguments matter (no provider, gated model)."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def complete(self, messages: list[dict[str, Any]], **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        return type("Result", (), {"text": "fine"})()


@pytest.mark.parametrize(("stdin", "code", "model"), [
    ({"prompt": "p", "model": "big-model"}, 0, None),  # the gate of a fresh home is closed
    ({"prompt": "p", "timeout_minutes": 2, "correlation_id": "workflow:abc:n"}, 0, None),
    ({"prompt": 5}, 2, None),
    ({"prompt": "p", "timeout_minutes": 0}, 2, None),
    ("not json", 2, None),
])
def test_the_request_is_checked_and_never_asks_for_a_provider(
        hermes_home: Path, stdin: Any, code: int, model: str | None) -> None:
    llm, out, err = RecordingLlm(), io.StringIO(), io.StringIO()
    text = stdin if isinstance(stdin, str) else json.dumps(stdin)
    assert run_agent_command(hermes_home, llm, io.StringIO(text), out, err) == code, err.getvalue()
    if code == 0:
        assert json.loads(out.getvalue()) == {"output": "fine"}
        (call,) = llm.calls
        assert "provider" not in call and call.get("model") == model
    else:
        assert not llm.calls and "error" in err.getvalue()
