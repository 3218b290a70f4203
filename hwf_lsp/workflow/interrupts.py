"""Stopping a run at a clean point and keeping it resumable, apart from the runner so the
language server can hold an interrupt per run without importing the run machinery at
start-up."""

from __future__ import annotations

import threading


class Interrupt(threading.Event):
    """"Stop at the next clean point, and keep the run resumable" (Ctrl-C, SIGTERM or
    SIGHUP to `hwf`; the editor shutting the language server down).  Unlike a cancel the
    run stays `running`: a running agent is killed, its attempt is not counted, the log
    says `interrupted`, and `resume` performs the step again."""

    reason = "interrupted"

    def interrupt(self, reason: str) -> None:
        self.reason = reason
        self.set()

