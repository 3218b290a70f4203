"""One bad entry in the store (a looping link, a FIFO, a link to a device) is a clear
error for the command that names it (exit 2), and `hwf runs` skips it with its reason."""

from __future__ import annotations

import os

import pytest
from hwf_cli_helpers import Hwf

LOOP_RUN = "abcdef123456"
COMMANDS = [
    ("show", LOOP_RUN), ("resume", LOOP_RUN), ("answer", LOOP_RUN, "ship"),
    ("respond", LOOP_RUN, "--output", "x"), ("cancel", LOOP_RUN), ("run", "loop"),
]


@pytest.fixture
def bad_home(hwf: Hwf) -> Hwf:
    designs, runs = hwf.home / "workflow-designs", hwf.home / "workflow-runs"
    designs.mkdir(parents=True)
    runs.mkdir(parents=True)
    os.symlink("loop.json", designs / "loop.json")
    os.symlink(f"{LOOP_RUN}.json", runs / f"{LOOP_RUN}.json")
    os.mkfifo(runs / "bbbbbb.json")
    os.symlink("/dev/zero", runs / "cccccc.json")
    return hwf


@pytest.mark.parametrize("args", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_a_symlink_loop_is_a_clear_error(bad_home: Hwf, args: tuple[str, ...]) -> None:
    result = bad_home(*args)
    assert result.code == 2, result
    assert "is unreadable: a symlink loop" in result.stderr
    assert "internal error" not in result.stderr


def test_runs_skips_bad_entries_with_their_reason(bad_home: Hwf) -> None:
    result = bad_home("runs")
    assert result.code == 0, result
    for name in (LOOP_RUN, "bbbbbb", "cccccc"):
        assert f"skipping unreadable run file {bad_home.home}/workflow-runs/{name}.json" \
            in result.stderr
