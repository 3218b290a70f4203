"""Run states of one runs directory, re-read only where a file changed.

The runs dir can hold thousands of runs and every step of every run rewrites one
file.  Re-reading all of them per change (as `RunStore.recent` does) cost the
editor 180-350 ms per change with 2,000 runs.  Here a file is re-read only when
its (inode, mtime_ns, size) moved — an atomic write always brings a new inode,
an in-place writer moves the mtime or the size — and a removed file is dropped.

One cache serves everything that lists runs in a process (the editor's hints,
lenses, hovers and run listings): `refresh()` does the I/O, on any thread, and
publishes an immutable `RunsSnapshot`; readers take `snapshot` without I/O.
Unreadable files are skipped (and logged at debug), never raised.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from hwf_lsp.workflow.names import check_run_id
from hwf_lsp.workflow.stores import RunStore, _timestamp

log = logging.getLogger(__name__)

FileKey = tuple[int, int, int]
"""(inode, mtime_ns, size) of a run file."""


class RunLoader(Protocol):
    root: Path

    def load(self, run_id: str) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class RunsSnapshot:
    """The runs of one directory at one moment; shared, so never change its states."""

    root: Path
    states: tuple[dict[str, Any], ...] = ()
    """Newest first: `updated_at`, else the file's mtime, then run id (as RunStore.recent)."""
    newest: Mapping[str, dict[str, Any]] = field(default_factory=dict)
    """Design name -> its newest run's state."""
    generation: int = 0
    """Moves whenever the states change; equal generations, equal states."""
    unreadable: tuple[str, ...] = ()
    """File names that could not be read or are not runs."""


@dataclass(slots=True)
class _Entry:
    key: FileKey
    stamp: float
    state: dict[str, Any] | None


MTIME_SETTLE_NS = 50_000_000
"""A directory mtime younger than this may be followed by a rename in the same tick."""


def dir_stamp(root: Path) -> tuple[int, int] | None:
    """(mtime_ns, inode) of a runs directory, None without it: every atomic write of a
    run renames a file into it, so the stamp moves when any run changes."""
    try:
        stat = os.stat(root)
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_ino


def stamp_settled(stamp: tuple[int, int] | None) -> bool:
    """Whether `stamp` can be trusted to move on the next write: a write in the same
    clock tick as the one it saw would not move the mtime."""
    return stamp is not None and time.time_ns() - stamp[0] > MTIME_SETTLE_NS


def _by_name(states: tuple[dict[str, Any], ...]) -> dict[str, dict[str, Any]]:
    newest: dict[str, dict[str, Any]] = {}
    for state in states:
        name = state.get("name")
        if isinstance(name, str) and name not in newest:
            newest[name] = state
    return newest


class RunFilesCache:
    """Incremental reader of one runs directory (thread-safe)."""

    def __init__(self, root: Path | str, store: RunLoader | None = None) -> None:
        self.root = Path(root)
        self._store = store
        self._lock = threading.Lock()
        self._entries: dict[str, _Entry] = {}
        self._snapshot: RunsSnapshot | None = None
        self.reads = 0
        """Files (re-)read so far: lets tests and benchmarks see the cache work."""

    @property
    def snapshot(self) -> RunsSnapshot | None:
        """The last snapshot `refresh` made; None before the first. No I/O."""
        return self._snapshot

    def _loader(self) -> RunLoader:
        if self._store is None:
            self._store = RunStore(self.root)  # opening sweeps stale temp files, once
        return self._store

    def refresh(self) -> RunsSnapshot:
        """List the directory, re-read changed files, drop removed ones; the new snapshot.

        When nothing changed, the previous snapshot object itself comes back.
        """
        with self._lock:
            try:
                with os.scandir(self.root) as listing:
                    found = [(entry.name, entry) for entry in listing
                             if entry.name.endswith(".json") and not entry.name.startswith(".")]
            except OSError:  # no runs dir (yet), or unreadable: no runs
                found = []
            fresh: dict[str, _Entry] = {}
            changed = False
            for name, entry in found:
                try:
                    stat = entry.stat()
                except OSError:
                    continue  # removed between listing and stat
                key = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
                cached = self._entries.get(name)
                if cached is not None and cached.key == key:
                    fresh[name] = cached
                    continue
                changed = True
                loaded = self._read(name)
                if loaded is _GONE:
                    continue
                state = loaded if isinstance(loaded, dict) else None
                stamp = _timestamp(state, stat.st_mtime) if state is not None else stat.st_mtime
                fresh[name] = _Entry(key, stamp, state)
            changed = changed or len(fresh) != len(self._entries)
            self._entries = fresh
            previous = self._snapshot
            if previous is not None and not changed:
                return previous
            ordered = sorted(
                ((e.stamp, str(e.state.get("run_id")), e.state)
                 for e in fresh.values() if e.state is not None),
                key=lambda item: (item[0], item[1]), reverse=True)
            states = tuple(state for _, _, state in ordered)
            snapshot = RunsSnapshot(
                root=self.root, states=states, newest=_by_name(states),
                generation=(previous.generation + 1) if previous is not None else 1,
                unreadable=tuple(sorted(n for n, e in fresh.items() if e.state is None)))
            self._snapshot = snapshot
            return snapshot

    def _read(self, name: str) -> Any:
        self.reads += 1
        try:
            run_id = check_run_id(name[: -len(".json")])
        except ValueError:
            return None  # not a run file name: remembered, so not retried until it changes
        try:
            return self._loader().load(run_id)
        except FileNotFoundError:
            return _GONE
        except (ValueError, OSError) as exc:
            log.debug("skipping unreadable run %s: %s", name, exc)
            return None


_GONE = object()
"""A file removed between listing and reading."""
