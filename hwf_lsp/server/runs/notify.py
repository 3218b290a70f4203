"""Telling the editor that runs changed: recheck, refresh lenses and hints, hwf/runsChanged.

Called by the watcher (its thread) whenever a run file under the Hermes home
changes, whoever wrote it.  The run files are re-read (only those that changed,
`workflow.run_cache`) and summarised on the watcher thread; the event loop gets a
ready snapshot and never touches the disk for it, however many runs there are.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from hwf_lsp.server.runs.summary import run_summary

if TYPE_CHECKING:
    from hwf_lsp.server.runs.manager import RunManager
    from hwf_lsp.server.server import HwfServer

log = logging.getLogger(__name__)

RUNS_CHANGED = "hwf/runsChanged"
RECENT_RUNS_IN_NOTIFICATION = 50


def recent_summaries(server: HwfServer, limit: int | None = RECENT_RUNS_IN_NOTIFICATION,
                     design: str | None = None, *, fresh: bool = True) -> list[dict[str, Any]]:
    """Summaries of the newest runs (of one design, if given), newest first.

    `fresh` refreshes the runs index first (file I/O: call it off the event loop);
    the watcher has just refreshed it and passes False."""
    snapshot = server.runs.refresh() if fresh else server.runs.snapshot()
    states: Any = snapshot.states
    if design is not None:
        states = [state for state in states if state.get("name") == design]
    return [run_summary(state, snapshot.root) for state in states[:limit]]


def _supports_refresh(server: HwfServer, feature: str) -> bool:
    workspace = server.client_capabilities.workspace
    caps = getattr(workspace, feature, None) if workspace is not None else None
    return bool(caps is not None and getattr(caps, "refresh_support", False))


def publish_runs_changed(server: HwfServer, runs: list[dict[str, Any]]) -> None:
    """On the loop: fresh diagnostics/hints/completions, refreshed lenses, and the notification."""
    server.recheck_all(runs_changed=True)
    if _supports_refresh(server, "code_lens"):
        server.workspace_code_lens_refresh(None)
    if _supports_refresh(server, "inlay_hint"):
        server.workspace_inlay_hint_refresh(None)
    server.protocol.notify(RUNS_CHANGED, {"runs": runs})


def on_runs_changed(server: HwfServer, manager: RunManager) -> None:
    """The watcher's callback (watcher thread)."""
    try:
        runs = recent_summaries(server, fresh=False)
    except Exception:  # still refresh, with what we could not list
        log.exception("listing runs failed")
        runs = []
    manager.call_on_loop(publish_runs_changed, server, runs)
