"""Run states by file, re-read only when a file changed: the runs dir can hold thousands.

Every step of every run rewrites one file; re-reading all of them on each change
(as `RunStore.recent` does) would cost seconds with a long history.  A file is
re-read only when its (inode, mtime, size) moved — an atomic write always brings
a new inode.  Unreadable files are skipped, as `RunStore.recent` skips them.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

from hwf_lsp.workflow.names import check_run_id
from hwf_lsp.workflow.runner import parse_iso
from hwf_lsp.workflow.stores import RunStore

log = logging.getLogger(__name__)

FileKey = tuple[int, int, int]


class RunFilesCache:
    """`recent(store)`: the run states under a RunStore's root, newest first (thread-safe).

    The states are shared with the cache: read them, never change them.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._root: Any = None
        self._entries: dict[str, tuple[FileKey, float, dict[str, Any] | None]] = {}

    def recent(self, store: RunStore) -> list[dict[str, Any]]:
        with self._lock:
            if store.root != self._root:
                self._root, self._entries = store.root, {}
            fresh: dict[str, tuple[FileKey, float, dict[str, Any] | None]] = {}
            try:
                listing = list(os.scandir(store.root))
            except OSError:
                listing = []
            for entry in listing:
                name = entry.name
                if not name.endswith(".json") or name.startswith("."):
                    continue
                try:
                    run_id = check_run_id(name[: -len(".json")])
                    stat = entry.stat()
                except (ValueError, OSError):
                    continue
                key = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
                cached = self._entries.get(name)
                if cached is not None and cached[0] == key:
                    fresh[name] = cached
                    continue
                try:
                    state: dict[str, Any] | None = store.load(run_id)
                except FileNotFoundError:
                    continue
                except (ValueError, OSError) as exc:
                    log.debug("skipping unreadable run %s: %s", name, exc)
                    state = None
                stamp = parse_iso(state.get("updated_at")) if state else None
                fresh[name] = (key, stamp if stamp is not None else stat.st_mtime, state)
            self._entries = fresh
            items = [(stamp, str(state.get("run_id")), state)
                     for _, stamp, state in fresh.values() if state is not None]
            items.sort(key=lambda item: (item[0], item[1]), reverse=True)
            return [state for _, _, state in items]
