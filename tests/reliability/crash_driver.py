"""Crash-consistency driver: advance a run and SIGKILL ourselves at the Nth crash point.

Crash points are every runner checkpoint (step-start, before-persist,
after-persist, after-delivery) plus the inside of every atomic write: before
the temp file's fsync, before `os.replace`, and before the directory's fsync
(after the rename).  Usage (run as a script, from tests/reliability/test_crash.py):

  crash_driver.py trace DESIGN HOME          run to the end, print the crash points met
  crash_driver.py sweep DESIGN ROOT FIRST LAST
        for N in FIRST..LAST: fork; the child advances a fresh run under ROOT/pN and
        kills itself with SIGKILL at crash point N; print one JSON line per N
  crash_driver.py one DESIGN HOME N          the same for one N, in this process (soak)

Everything here is deterministic, so a resumed run must end with exactly the
outputs of an uninterrupted one.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

from hwf_lsp.workflow import atomic
from hwf_lsp.workflow.delivery import Delivery
from hwf_lsp.workflow.runner import Runner
from hwf_lsp.workflow.seams import AgentRequest, CallableAgentSeam
from hwf_lsp.workflow.stores import RunStore

CHANNEL_LOG = "deliveries.log"
NOTIFY_LOG = "notifications.log"
RUN_ID_FILE = "run_id"
KILLED_AT_FILE = "killed-at"


def agent(request: AgentRequest) -> dict[str, Any]:
    """Deterministic: the result depends on the prompt and the parents' outputs only."""
    score = (len(request.prompt) * 7 + len(request.context)) % 10
    return {"structured": {"score": score, "echo": request.prompt, "seen": len(request.context)}}


def _append(path: Path, line: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.write(fd, (line + "\n").encode("utf-8"))
    finally:
        os.close(fd)


def make_runner(home: Path) -> Runner:
    """The runner of a crash test: our agent, a channel command that logs each payload."""
    channel = ["/bin/sh", "-c", 'cat >> "$1" && echo >> "$1"', "channel", str(home / CHANNEL_LOG)]
    notify_log = home / NOTIFY_LOG
    return Runner(RunStore(home / "workflow-runs"), agent=CallableAgentSeam(agent),
                  delivery=Delivery(notify=lambda text: _append(notify_log, text),
                                    channel_argv=channel))


class CrashPoints:
    """Counts crash points; at point `kill_at` (1-based) records its label and SIGKILLs."""

    def __init__(self, kill_at: int, record: Path | None) -> None:
        self.kill_at = kill_at
        self.record = record
        self.labels: list[str] = []
        self._after_replace = False
        self._saved: list[tuple[Any, str, Any]] = []

    def hit(self, label: str) -> None:
        self.labels.append(label)
        if len(self.labels) == self.kill_at:
            if self.record is not None:
                _append(self.record, f"{self.kill_at} {label}")
            os.kill(os.getpid(), signal.SIGKILL)

    def install(self) -> None:
        real_fsync, real_replace = os.fsync, os.replace

        def fsync(fd: int) -> None:
            self.hit("atomic: before dir fsync" if self._after_replace
                     else "atomic: temp written, before fsync")
            self._after_replace = False
            real_fsync(fd)

        def replace(src: Any, dst: Any) -> None:
            self.hit("atomic: before os.replace")
            real_replace(src, dst)
            self._after_replace = True

        for owner, name, value in ((os, "fsync", fsync), (os, "replace", replace)):
            self._saved.append((owner, name, getattr(owner, name)))
            setattr(owner, name, value)
        assert atomic.os is os  # atomic.py calls os.fsync / os.replace through the module

    def uninstall(self) -> None:
        while self._saved:
            owner, name, value = self._saved.pop()
            setattr(owner, name, value)


def run_once(design: dict, home: Path, kill_at: int) -> dict[str, Any]:
    """Create a run (no crash points yet), then advance it with crash points armed."""
    home.mkdir(parents=True, exist_ok=True)
    runner = make_runner(home)
    state = runner.create(design)
    run_id = state["run_id"]
    _append(home / RUN_ID_FILE, run_id)
    points = CrashPoints(kill_at, home / KILLED_AT_FILE)
    runner.checkpoint = points.hit
    points.install()
    try:
        final = runner.advance(run_id)
    finally:
        points.uninstall()
    return {"run_id": run_id, "labels": points.labels, "status": final["status"],
            "outputs": final["outputs"], "skipped": final["skipped"],
            "ok_receipts": [r["key"].split(":", 1)[1] for r in final["deliveries"] if r["ok"]]}


def sweep(design: dict, root: Path, first: int, last: int) -> None:
    for point in range(first, last + 1):
        home = root / f"p{point}"
        pid = os.fork()
        if pid == 0:  # the child: run, and (normally) die at the crash point
            code = 0
            try:
                run_once(design, home, point)
            except BaseException:  # noqa: BLE001 - reported through the exit status
                code = 3
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
        print(json.dumps({"point": point, "home": str(home), "killed": killed,
                          "exit": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None}),
              flush=True)


def main(argv: list[str]) -> int:
    mode, design_path, where = argv[0], Path(argv[1]), Path(argv[2])
    design = json.loads(design_path.read_text(encoding="utf-8"))
    if mode == "trace":
        print(json.dumps(run_once(design, where, kill_at=0)))
    elif mode == "sweep":
        sweep(design, where, int(argv[3]), int(argv[4]))
    elif mode == "one":
        run_once(design, where, int(argv[3]))
    else:
        print(f"unknown mode {mode!r}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
