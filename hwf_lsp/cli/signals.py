"""Ctrl-C, SIGTERM and SIGHUP while `hwf` advances a run: stop at a clean point.

The default (KeyboardInterrupt, or death) would leave the agent working and the run
file saying `running` with nothing advancing it.  Instead the first signal interrupts
the runner (workflow.runner.Interrupt): the agent's process group is killed, the log
says `interrupted`, the run stays resumable, and `hwf` prints `next: hwf resume ID`
and exits 128 + the signal's number (130 for Ctrl-C), as a shell reports a program
that signal ended.  A second signal ends `hwf` at once (the agent still dies with it).
"""

from __future__ import annotations

import contextlib
import os
import signal
from types import FrameType
from typing import Any

from hwf_lsp.workflow.interrupts import Interrupt

STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                     if hasattr(signal, name))


class StopOnSignals:
    """`with StopOnSignals(interrupt) as stops:` — `stops.signum` is the first signal."""

    def __init__(self, interrupt: Interrupt) -> None:
        self.interrupt = interrupt
        self.signum: int | None = None
        self._previous: dict[int, Any] = {}

    @property
    def exit_code(self) -> int:
        return 128 + (self.signum or signal.SIGINT)

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if self.signum is not None:  # asked twice: stop now
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        self.signum = signum
        self.interrupt.interrupt(f"interrupted by {signal.Signals(signum).name}")

    def __enter__(self) -> StopOnSignals:
        for signum in STOP_SIGNALS:
            with contextlib.suppress(ValueError, OSError):  # not the main thread
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, previous in self._previous.items():
            with contextlib.suppress(ValueError, OSError, TypeError):
                signal.signal(signum, previous)
