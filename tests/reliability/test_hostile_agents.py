"""Issue 13: hostile agents and delivery commands.

Item 9: a command that exits but leaves a child holding its stdout ends its step when it
exits, and the child is killed (before, the step waited for an end of file until it
"timed out", and a delivery that had delivered was recorded `ok: false`).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hostile import alive, wait_until

from hwf_lsp.workflow.delivery import Delivery
from hwf_lsp.workflow.seams import AgentRequest, CommandAgentSeam

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
