"""A cancel during an agent step that Hermes' PluginLlm performs ends the run cancelled,
promptly (issue 45, Hermes items): `ctx.llm.complete` blocks and cannot be killed as an
agent command can, so the seam waits for it in slices, watching the run's cancel, and a
result that arrives after the cancel is not recorded.  Was: the cancel answered `running`
for 5 s and the step ended `done` before the run was cancelled.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hostile import agent_design, wait_until

from hwf_lsp.hermes.host_seams import PluginLlmSeam
from hwf_lsp.workflow.runner import Runner
from hwf_lsp.workflow.stores import RunStore

SLOW_S = 6.0


class SlowLlm:
    """ctx.llm whose answer takes SLOW_S seconds (a model call in flight)."""

    def __init__(self) -> None:
        self.called = threading.Event()

    def complete(self, messages: list[dict[str, Any]], **kwargs: Any) -> Any:
        self.called.set()
        time.sleep(SLOW_S)
        return type("Result", (), {"text": "late answer"})()


@pytest.mark.timeout(60)
def test_a_cancel_mid_llm_call_ends_the_run_cancelled_at_once(tmp_path: Path) -> None:
    runs = RunStore(tmp_path / "workflow-runs")
    llm = SlowLlm()
    runner = Runner(runs, agent=PluginLlmSeam(llm))
    run_id = runner.create(agent_design("slow", agents=1))["run_id"]
    result: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: result.update(runner.advance(run_id)))
    thread.start()
    wait_until(llm.called.is_set, what="the model call")
    started = time.monotonic()
    answer = Runner(runs).cancel(run_id)  # another runner: the dashboard's cancel route
    took = time.monotonic() - started
    thread.join(SLOW_S + 10)
    assert answer["status"] == "cancelled", answer["status"]
    assert took < SLOW_S / 2, f"the cancel waited {took:.1f} s for the model"
    assert result["status"] == "cancelled"
    assert "a0" not in result["outputs"], "a result after the cancel was recorded"
