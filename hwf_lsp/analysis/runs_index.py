"""The newest run of each design, read from $HERMES_HOME/workflow-runs.

Completion, hover, hints and the `path-absent` check all want "what did this
node output last time".  The runs come from one `workflow.run_cache.RunFilesCache`
per runs dir, which re-reads only the files that changed.  Two ways to keep it
fresh:

- standalone (`auto_refresh=True`, the default): every question first checks the
  runs directory's mtime and refreshes when it moved (every atomic write renames
  a file into it);
- fed (`auto_refresh=False`, the language server): someone else calls `refresh()`
  off the event loop (the runs watcher's thread, a finished run command) and the
  loop only reads the last snapshot, so a burst of run writes never makes a hover
  wait for file I/O (before the first refresh it sees no runs rather than wait).

A corrupt or unreadable run file is skipped, never raised: the editor must keep working.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from hwf_lsp.workflow.run_cache import RunFilesCache, RunsSnapshot, dir_stamp, stamp_settled
from hwf_lsp.workflow.run_facts import (
    STEP_DONE,
    STEP_FAILED,
    STEP_SKIPPED,
    STEP_WAITING,
    failed_step,
    step_status,
)
from hwf_lsp.workflow.stores import RUNS_DIRNAME

DONE, FAILED, WAITING, SKIPPED = STEP_DONE, STEP_FAILED, STEP_WAITING, STEP_SKIPPED


@dataclass(frozen=True, slots=True)
class RunInfo:
    """The parts of a run state the editor shows; `state` keeps the rest."""

    run_id: str
    name: str | None
    status: str | None
    outputs: dict[str, Any]
    skipped: tuple[str, ...]
    pending: dict[str, Any] | None
    error: Any
    updated_at: str | None
    path: str
    state: dict[str, Any] = field(repr=False, default_factory=dict)
    failed: str | None = None
    """The step a failed run failed at (`workflow.run_facts.failed_step`), else None."""

    @classmethod
    def from_state(cls, state: dict[str, Any], path: str) -> RunInfo:
        outputs = state.get("outputs")
        skipped = state.get("skipped")
        pending = state.get("pending")
        updated = state.get("updated_at")
        name = state.get("name")
        status = state.get("status")
        return cls(
            run_id=str(state.get("run_id", "")),
            name=name if isinstance(name, str) else None,
            status=status if isinstance(status, str) else None,
            outputs=outputs if isinstance(outputs, dict) else {},
            skipped=tuple(s for s in skipped if isinstance(s, str))
            if isinstance(skipped, list) else (),
            pending=pending if isinstance(pending, dict) else None,
            error=state.get("error"),
            updated_at=updated if isinstance(updated, str) else None,
            path=path,
            state=state,
            failed=failed_step(state),
        )

    def with_design(self, design: Any) -> RunInfo:
        """This run, with its failed step found in `design` (the open or stored design of
        the same name) when the run has neither a log nor a design snapshot to find it in."""
        if self.status != "failed" or self.failed is not None:
            return self
        failed = failed_step(self.state, design)
        return self if failed is None else replace(self, failed=failed)

    def failed_node(self) -> str | None:
        """The node a failed run failed on (one rule for everyone: `run_facts.failed_step`)."""
        return self.failed

    def node_status(self, node_id: str) -> str | None:
        """done / failed / waiting / skipped for one node, None when it has not run."""
        return step_status(self.state, node_id, self.failed)


class RunsIndex:
    """Newest run per design name under one Hermes home; thread-safe."""

    def __init__(self, home: Path | str, *, auto_refresh: bool = True,
                 cache: RunFilesCache | None = None) -> None:
        self.home = Path(home)
        self.root = self.home / RUNS_DIRNAME
        self.auto_refresh = auto_refresh
        self.cache = cache if cache is not None else RunFilesCache(self.root)
        self._lock = threading.Lock()
        self._stamp: tuple[int, int] | None = None
        self._infos: tuple[int, dict[str, RunInfo]] = (0, {})
        """(snapshot generation, RunInfo per design name built so far)."""

    def newest(self, design_name: str | None, *, refresh: bool | None = None) -> RunInfo | None:
        """The most recent run (updated_at, else mtime) whose `name` is `design_name`.

        `refresh` (default: `auto_refresh`) re-checks the disk first; a fed index's
        worker threads (diagnostics) pass True, its event loop never does."""
        if not design_name:
            return None
        return self._info(self._current(refresh), design_name)

    def refreshing(self) -> _Refreshing:
        """This index as `analyse` sees it on a worker thread: checking the disk first."""
        return _Refreshing(self)

    def all_newest(self) -> dict[str, RunInfo]:
        snapshot = self._current()
        return {name: info for name in snapshot.newest
                if (info := self._info(snapshot, name)) is not None}

    def snapshot(self) -> RunsSnapshot:
        """Every run, newest first, as of the last refresh (refreshing as `newest` would)."""
        return self._current()

    def refresh(self) -> RunsSnapshot:
        """Re-read what changed on disk (I/O: call it off the event loop when fed)."""
        stamp = dir_stamp(self.root)
        snapshot = self.cache.refresh()
        self._stamp = stamp if stamp_settled(stamp) else None
        return snapshot

    def _current(self, refresh: bool | None = None) -> RunsSnapshot:
        if refresh is None:
            refresh = self.auto_refresh
        snapshot = self.cache.snapshot
        if snapshot is None:
            if not refresh:  # fed, before the first refresh: no runs yet, and no waiting
                return RunsSnapshot(self.root)
            return self.refresh()
        if refresh and (self._stamp is None or dir_stamp(self.root) != self._stamp):
            return self.refresh()
        return snapshot

    def _info(self, snapshot: RunsSnapshot, name: str) -> RunInfo | None:
        state = snapshot.newest.get(name)
        if state is None:
            return None
        with self._lock:
            generation, infos = self._infos
            if generation != snapshot.generation:
                infos = {}
                self._infos = (snapshot.generation, infos)
            info = infos.get(name)
            if info is None or info.state is not state:
                run_id = str(state.get("run_id", ""))
                info = infos[name] = RunInfo.from_state(
                    state, str(self.root / f"{run_id}.json"))
            return info


@dataclass(frozen=True, slots=True)
class _Refreshing:
    index: RunsIndex

    def newest(self, design_name: str | None) -> RunInfo | None:
        return self.index.newest(design_name, refresh=True)


def design_name(top: Any, path: str | None) -> str | None:
    """A design's name: its `name` field, else the file's stem (`x.hwf.json` -> `x`)."""
    if isinstance(top, dict) and isinstance(top.get("name"), str) and top["name"]:
        return top["name"]
    if not path:
        return None
    base = path.replace("\\", "/").rsplit("/", 1)[-1]
    for suffix in (".hwf.json", ".json"):
        if base.endswith(suffix):
            return base[: -len(suffix)] or None
    return base or None
