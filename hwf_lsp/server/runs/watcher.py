"""Polls $HERMES_HOME/workflow-runs so runs written by other processes show in the editor.

Chat, cron, the canvas and the `hwf` CLI write run files too; the editor must
show them within a second.  Polling (every 200 ms) works everywhere, including
network and container file systems where inotify does not.  The signature of
the directory is its listing with each run file's inode, mtime and size: an
atomic write (`os.replace`) always brings a new inode, and an in-place writer
moves the mtime or size, so every write is seen, even two in one clock tick.

Listing and stat-ing thousands of run files five times a second would cost a
core's worth of percent, so a poll first compares the directory's own mtime:
every atomic write renames into the directory and moves it.  The full listing
runs when that mtime moved, when it was too fresh to trust (a second rename in
the same clock tick would not move it again), and at least every 0.8 s (for
writers that rewrite a file in place, which leave the directory's mtime alone).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from hwf_lsp.workflow.run_cache import dir_stamp, stamp_settled

log = logging.getLogger(__name__)

POLL_INTERVAL_S = 0.2
FULL_SCAN_EVERY_S = 0.8

Signature = tuple[tuple[str, int, int, int], ...] | None


def runs_signature(root: Path) -> Signature:
    """What changes whenever a run file is written, added or removed; None without the dir."""
    try:
        entries = []
        with os.scandir(root) as listing:
            for entry in listing:
                name = entry.name
                if not name.endswith(".json") or name.startswith("."):
                    continue  # temp files (.tmp-*) and the .locks dir are not runs
                try:
                    stat = entry.stat()
                except FileNotFoundError:
                    continue
                entries.append((name, stat.st_ino, stat.st_mtime_ns, stat.st_size))
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError:
        log.debug("cannot list %s", root, exc_info=True)
        return None
    entries.sort()
    return tuple(entries)


class RunsWatcher:
    """A daemon thread calling `on_change()` (from that thread) when the runs dir changes.

    `root()` is asked on every poll, so a change of `hwf.hermesHome` is followed
    (and counts as a change).  `prime()`, if given, runs first on the thread (the
    server reads the run history there, not on its event loop).  `signature(root)`
    says what changed; the server passes the runs index's refresh, so one listing
    both detects a change and reads it.
    """

    def __init__(self, root: Callable[[], Path], on_change: Callable[[], None],
                 interval: float = POLL_INTERVAL_S,
                 prime: Callable[[], object] | None = None,
                 signature: Callable[[Path], object] = runs_signature) -> None:
        self._root = root
        self._on_change = on_change
        self._prime = prime
        self._signature = signature
        self._interval = interval
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._loop, name="hwf-runs-watcher", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _loop(self) -> None:
        if self._prime is not None:
            try:
                self._prime()
            except Exception:  # the watcher must start anyway
                log.exception("runs watcher: priming failed")
        root = self._root()
        last = self._signature(root)
        stamp, trusted, scanned_at = dir_stamp(root), False, time.monotonic()
        while not self._stop.wait(self._interval):
            try:
                current_root = self._root()
                current_stamp = dir_stamp(current_root)
                if (current_root == root and current_stamp == stamp and trusted
                        and time.monotonic() - scanned_at < FULL_SCAN_EVERY_S):
                    continue  # the directory did not change: no rename into it
                trusted = stamp_settled(current_stamp)
                stamp, scanned_at = current_stamp, time.monotonic()
                signature = self._signature(current_root)
                if current_root == root and signature == last:
                    continue
                root, last = current_root, signature
                self._on_change()
            except Exception:  # the watcher must outlive any one bad poll
                log.exception("runs watcher poll failed")
