"""The newest run of each design, read from $HERMES_HOME/workflow-runs.

Completion, hover, hints and the `path-absent` check all want "what did this
node output last time".  Reading every run file per keystroke would be slow, so
the index is rebuilt only when the runs directory's mtime changes (every atomic
write renames a file into it, which bumps the mtime).  A corrupt or unreadable
run file is skipped, never raised: the editor must keep working.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hwf_lsp.workflow.stores import RUNS_DIRNAME, RunStore

log = logging.getLogger(__name__)

_MTIME_SETTLE_NS = 50_000_000

DONE, FAILED, WAITING, SKIPPED = "done", "failed", "waiting", "skipped"


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
        )

    def failed_node(self) -> str | None:
        """The node a failed run failed on: named by `error` or `failed_node`, if at all."""
        if self.status != "failed":
            return None
        for source in (self.state.get("failed_node"), self.error):
            if isinstance(source, str) and source in self.state.get("attempts", {}):
                return source
            if isinstance(source, dict) and isinstance(source.get("node"), str):
                return source["node"]
        attempts = self.state.get("attempts")
        if isinstance(attempts, dict) and isinstance(self.error, str):
            for node in attempts:
                if isinstance(node, str) and node not in self.outputs and node in self.error:
                    return node
        return None

    def node_status(self, node_id: str) -> str | None:
        """done / failed / waiting / skipped for one node, None when it has not run."""
        if node_id in self.skipped:
            return SKIPPED
        if node_id in self.outputs:
            return DONE
        if self.pending is not None and self.pending.get("node") == node_id:
            return WAITING
        if self.failed_node() == node_id:
            return FAILED
        return None


class RunsIndex:
    """Newest run per design name under one Hermes home; thread-safe, cached by mtime."""

    def __init__(self, home: Path | str) -> None:
        self.home = Path(home)
        self.root = self.home / RUNS_DIRNAME
        self._lock = threading.Lock()
        self._stamp: tuple[int, int] | None = None
        self._newest: dict[str, RunInfo] = {}
        self._store: RunStore | None = None

    def newest(self, design_name: str | None) -> RunInfo | None:
        """The most recent run (updated_at, else mtime) whose `name` is `design_name`."""
        if not design_name:
            return None
        with self._lock:
            self._refresh()
            return self._newest.get(design_name)

    def all_newest(self) -> dict[str, RunInfo]:
        with self._lock:
            self._refresh()
            return dict(self._newest)

    def invalidate(self) -> None:
        with self._lock:
            self._stamp = None

    def _refresh(self) -> None:
        try:
            stat = os.stat(self.root)
            stamp = (stat.st_mtime_ns, stat.st_ino)
        except OSError:
            self._stamp, self._newest = None, {}
            return
        if stamp == self._stamp:
            return
        try:
            if self._store is None:
                self._store = RunStore(self.root)
            states, errors = self._store.recent_with_errors()
        except Exception:  # noqa: BLE001 - a broken runs dir must not break the editor
            log.exception("cannot read runs under %s", self.root)
            states, errors = [], []
        for error in errors:
            log.debug("skipping unreadable run %s: %s", error.path, error.message)
        newest: dict[str, RunInfo] = {}
        for state in states:  # newest first
            name = state.get("name")
            if isinstance(name, str) and name not in newest:
                run_id = str(state.get("run_id", ""))
                newest[name] = RunInfo.from_state(state, str(self.root / f"{run_id}.json"))
        self._newest = newest
        # A write in the same clock tick as the one we saw would not move the mtime:
        # trust the stamp only once it is older than the file-system's granularity.
        settled = time.time_ns() - stat.st_mtime_ns > _MTIME_SETTLE_NS
        self._stamp = stamp if settled else None


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
