"""Telling the editor that runs changed: recheck, refresh lenses and hints, hwf/runsChanged.

Called by the watcher (its thread) whenever run files under the Hermes home change,
whoever wrote them.  The runs index is brought up to date there (only the files that
changed are read, `workflow.run_index`) and the summaries are made there; the event
loop gets ready params and never touches the disk for them, however many runs there are.

`hwf/runsChanged` carries what changed, not the whole list (docs/commands.md):
`{"changed": [run summary, ...], "removed": [run_id, ...]}` (at most 200 summaries per
notification, so a burst of runs comes in several); only when too much
changed to tell (a new Hermes home, a cold start, another process rebuilding the
index) does it carry `{"runs": [the newest run summaries]}` to start over from.
A parked run's summary (with its `pending.context`) is sent when that run changes,
not with every unrelated change.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from hwf_lsp.workflow.run_summary import run_summary

if TYPE_CHECKING:
    from hwf_lsp.server.runs.manager import RunManager
    from hwf_lsp.server.runs.newest_runs import NewestRunsByDesign
    from hwf_lsp.server.server import HwfServer
    from hwf_lsp.workflow.run_index import Changes, RunRow

log = logging.getLogger(__name__)

RUNS_CHANGED = "hwf/runsChanged"
RECENT_RUNS_IN_NOTIFICATION = 50
MAX_CHANGED_IN_NOTIFICATION = 200
SUMMARIES_KEPT = 1024


class Summaries:
    """Run summaries by (run id, file key): a listing reads only files it has not
    summarised in their current version.  Bounded: the newest runs, not the history."""

    def __init__(self, limit: int = SUMMARIES_KEPT) -> None:
        self._limit = limit
        self._lock = threading.Lock()
        self._kept: OrderedDict[tuple[str, tuple[int, int, int]], dict[str, Any]] = OrderedDict()

    def of(self, row: RunRow, runs: NewestRunsByDesign) -> dict[str, Any] | None:
        key = (row.run_id, row.key)
        with self._lock:
            summary = self._kept.get(key)
            if summary is not None:
                self._kept.move_to_end(key)
                return summary
        state = runs.index.load(row)
        if state is None:
            return None
        summary = run_summary(state, runs.root)
        with self._lock:
            self._kept[key] = summary
            while len(self._kept) > self._limit:
                self._kept.popitem(last=False)
        return summary


def summaries_of(server: HwfServer) -> Summaries:
    kept = getattr(server, "run_summaries", None)
    if kept is None:
        kept = server.run_summaries = Summaries()
    return kept


def _summaries(server: HwfServer, rows: Iterable[RunRow]) -> list[dict[str, Any]]:
    kept, runs = summaries_of(server), server.runs
    return [summary for row in rows if (summary := kept.of(row, runs)) is not None]


def recent_summaries(server: HwfServer, limit: int | None = RECENT_RUNS_IN_NOTIFICATION,
                     design: str | None = None) -> list[dict[str, Any]]:
    """Summaries of the newest runs (of one design, if given), newest first (I/O: call it
    off the event loop).  The watcher keeps the index current; unprimed, it is synced first."""
    runs = server.runs
    if not runs.primed:
        runs.refresh()
    return _summaries(server, runs.recent(limit, design))


def runs_changed_params(server: HwfServer, changes: Changes) -> list[dict[str, Any]]:
    """The hwf/runsChanged params for `changes` (watcher thread): one notification, or
    several of at most MAX_CHANGED_IN_NOTIFICATION summaries each, oldest first, so that
    every changed run is named once and a client that puts each first ends newest first."""
    if changes.reset:
        return [{"runs": recent_summaries(server)}]
    index = server.runs.index
    rows = [row for run_id in changes.changed if (row := index.row(run_id)) is not None]
    rows.sort(key=lambda row: (row.stamp, row.run_id))
    chunks = [rows[at:at + MAX_CHANGED_IN_NOTIFICATION]
              for at in range(0, len(rows), MAX_CHANGED_IN_NOTIFICATION)] or [[]]
    params = [{"changed": _summaries(server, chunk[::-1]), "removed": []} for chunk in chunks]
    params[-1]["removed"] = list(changes.removed)
    return params


def _supports_refresh(server: HwfServer, feature: str) -> bool:
    workspace = server.client_capabilities.workspace
    caps = getattr(workspace, feature, None) if workspace is not None else None
    return bool(caps is not None and getattr(caps, "refresh_support", False))


def publish_runs_changed(server: HwfServer, params: list[dict[str, Any]]) -> None:
    """On the loop: fresh diagnostics/hints/completions, refreshed lenses, the notifications."""
    server.recheck_all(runs_changed=True)
    if _supports_refresh(server, "code_lens"):
        server.workspace_code_lens_refresh(None)
    if _supports_refresh(server, "inlay_hint"):
        server.workspace_inlay_hint_refresh(None)
    for one in params:
        server.protocol.notify(RUNS_CHANGED, one)


def on_runs_changed(server: HwfServer, manager: RunManager,
                    files: set[str] | None = None) -> None:
    """The watcher's callback (watcher thread): these run files changed (None: maybe any)."""
    try:
        changes = server.runs.refresh(files)
        if not changes:
            return
        params = runs_changed_params(server, changes)
    except Exception:
        log.exception("listing runs failed")
        params = [{"runs": []}]
    manager.call_on_loop(publish_runs_changed, server, params)


def refresh_after_command(server: HwfServer, result: Any) -> None:
    """A command wrote its run: bring that one file in now (I/O), so lenses asked for
    right after the answer are current without waiting for the watcher."""
    run_id = result.get("run_id") if isinstance(result, dict) else None
    if isinstance(run_id, str):
        server.runs.refresh([f"{run_id}.json"])
