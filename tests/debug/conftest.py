"""Fixtures of the debugger tests: a DAP client on `hwf debug-adapter`, a $HERMES_HOME,
a copy of examples/review-flow.hwf.json and the recording agent."""

from __future__ import annotations

import shlex
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support.dap_client import ROOT, DapClient

EXAMPLES = ROOT / "examples"
AGENT = Path(__file__).parent / "agents" / "recording_agent.py"
CHANNEL = ROOT / "tests" / "workflow" / "agents" / "channel.py"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "hermes"


@pytest.fixture
def design(tmp_path: Path) -> Path:
    """review-flow and its test file, copied (a test may edit them)."""
    for name in ("review-flow.hwf.json", "review-flow.hwf-test.json"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    return tmp_path / "review-flow.hwf.json"


@pytest.fixture
def calls(tmp_path: Path) -> Path:
    """The file the recording agent appends each call's node id to."""
    return tmp_path / "calls.txt"


@pytest.fixture
def agent_command() -> str:
    return shlex.join([sys.executable, str(AGENT)])


@pytest.fixture
def channel(tmp_path: Path) -> tuple[str, Path]:
    """A delivery command that appends what it is asked to deliver to a file, and the file."""
    sent = tmp_path / "sent.jsonl"
    return shlex.join([sys.executable, str(CHANNEL), str(sent)]), sent


@pytest.fixture
def dap(home: Path, calls: Path) -> Iterator[Callable[..., DapClient]]:
    """Start adapters (the recording agent's env set); every one is closed at the end."""
    started: list[DapClient] = []

    def start(**env: str) -> DapClient:
        client = DapClient(home, {"HWF_TEST_CALLS": str(calls), **env})
        started.append(client)
        return client

    yield start
    for client in started:
        client.close()
