"""Watches $HERMES_HOME/workflow-runs so runs written by other processes show in the editor.

Chat, cron, the canvas and the `hwf` CLI write run files too.  Watching must cost
nothing while nothing changes, however long the history:

- **File events** (`watchdog`: inotify, FSEvents, ReadDirectoryChangesW) name each run
  file written, renamed in, closed after an in-place write, or removed; only those
  files are looked at again.  The thread sleeps in between (it wakes once a second
  to follow a change of `hwf.hermesHome`).  Once writes have stopped for
  `SETTLE_AFTER_S`, one `settle()` lets the index claim the directory again, so the
  next `hwf runs` is a query (workflow/run_index.py).
- **Fallback** where events are unavailable (no watchdog, inotify limits, a file
  system without events): one stat of the directory per poll.  Every atomic write
  renames a file into the directory and so moves its mtime; then the whole directory
  is compared with the index (one readdir, no stat per file).  No periodic re-stat of
  every run file.

Either way a missed event cannot stay missed: a directory stamp that moved with no
event behind it is a change of everything.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hwf_lsp.workflow.run_index import Stamp, dir_stamp, is_run_file_name, stamp_settled

log = logging.getLogger(__name__)

POLL_INTERVAL_S = 0.2
EVENT_WAKE_S = 1.0
DEBOUNCE_S = 0.01
"""Events of one atomic write (temp file created, renamed in) arrive together."""
SETTLE_AFTER_S = 2.0

OnChange = Callable[[set[str] | None], None]
"""Called with the changed run file names, or None for "look at everything"."""


class _Events:
    """watchdog observer of one directory, collecting run file names (thread-safe)."""

    def __init__(self, root: Path, wake: threading.Event) -> None:
        from watchdog.events import (
            DirDeletedEvent,
            DirMovedEvent,
            FileClosedEvent,
            FileDeletedEvent,
            FileMovedEvent,
            FileSystemEventHandler,
        )
        from watchdog.observers import Observer

        self.root = root
        self._wake = wake
        self._lock = threading.Lock()
        self._names: set[str] = set()
        self.lost = False
        """The directory itself went away: events from it are over."""
        self.count = 0
        self.last_at = 0.0
        """When the last event came (time.monotonic())."""
        events = self

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event: Any) -> None:
                events.saw(event)

        self._observer = Observer()
        # renamed in or away, closed after writing (in place, or a copy), removed: not
        # IN_CREATE, which every temp file also sends (a quarter of the events, for nothing)
        self._observer.schedule(Handler(), str(root), recursive=False, event_filter=[
            FileMovedEvent, FileDeletedEvent, FileClosedEvent, DirDeletedEvent, DirMovedEvent])
        self._observer.daemon = True
        self._observer.start()

    def saw(self, event: Any) -> None:
        paths = [event.src_path, getattr(event, "dest_path", "") or ""]
        if event.is_directory:
            if any(p and Path(p) == self.root for p in paths):
                self.lost = True
                self._wake.set()
            return
        names = {Path(p).name for p in paths if p and Path(p).parent == self.root}
        names = {n for n in names if is_run_file_name(n)}
        if not names:
            return
        with self._lock:
            self._names |= names
            self.count += 1
            self.last_at = time.monotonic()
        self._wake.set()

    def take(self) -> set[str]:
        with self._lock:
            names, self._names = self._names, set()
        return names

    @property
    def alive(self) -> bool:
        return not self.lost and self._observer.is_alive()

    def stop(self) -> None:
        try:
            self._observer.stop()
        except Exception:
            log.debug("stopping the observer failed", exc_info=True)


def start_events(root: Path, wake: threading.Event) -> _Events | None:
    """File events for `root`, or None where they are unavailable (then: poll)."""
    try:
        return _Events(root, wake)
    except Exception as exc:  # noqa: BLE001 - ImportError, OSError (inotify limits), ...
        log.info("no file events for %s (%s): polling its stamp every %.1f s", root, exc,
                 POLL_INTERVAL_S)
        return None


class RunsWatcher:
    """A daemon thread calling `on_change(names | None)` (from that thread) when runs change.

    `root()` is asked on every wake, so a change of `hwf.hermesHome` is followed (and
    is a change of everything).  `prime()`, if given, runs first on the thread (the
    server reads what it needs of the history there, not on its event loop);
    `settle()` after writes have stopped.  `events=False` forces the poll.
    """

    def __init__(self, root: Callable[[], Path], on_change: OnChange, *,
                 interval: float = POLL_INTERVAL_S,
                 prime: Callable[[], object] | None = None,
                 settle: Callable[[], object] | None = None,
                 events: bool = True) -> None:
        self._root = root
        self._on_change = on_change
        self._prime = prime
        self._settle = settle
        self._interval = interval
        self._use_events = events
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._events: _Events | None = None

    @property
    def using_events(self) -> bool:
        return self._events is not None and self._events.alive

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._loop, name="hwf-runs-watcher", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._events is not None:
            self._events.stop()

    def _watch(self, root: Path) -> None:
        if self._events is not None:
            self._events.stop()
            self._events = None
        if self._use_events and dir_stamp(root) is not None:
            self._events = start_events(root, self._wake)

    def _watch_since(self, root: Path, stamp: Stamp | None) -> Stamp | None:
        """Start file events for `root`; then, if the directory changed since `stamp` (a
        write between that look and the events' start, which no event names), look at
        everything now rather than at the next stamp check, EVENT_WAKE_S later.  The
        stamp to compare with from now on."""
        self._watch(root)
        now = dir_stamp(root)
        if self._events is not None and now != stamp:
            self._call(self._on_change, None)
        return now

    def _call(self, callback: Callable[..., object] | None, *args: Any) -> None:
        if callback is None:
            return
        try:
            callback(*args)
        except Exception:
            log.exception("runs watcher: %s failed", getattr(callback, "__name__", callback))

    def _loop(self) -> None:
        root = self._root()
        stamp = dir_stamp(root)  # before priming: a write during it still moves the stamp
        self._call(self._prime)
        stamp = self._watch_since(root, stamp)
        last_write: float | None = None
        counted = 0
        fresh = False
        while not self._stop.is_set():
            self._wake.wait(EVENT_WAKE_S if self.using_events else self._interval)
            self._wake.clear()
            if self._stop.is_set():
                return
            current = self._root()
            if current != root:
                root = current
                self._watch(root)
                stamp = dir_stamp(root)
                last_write = None
                self._call(self._on_change, None)
                continue
            events = self._events
            if events is not None and not events.alive:
                self._watch(root)  # the directory went away (or was replaced)
                stamp, last_write = dir_stamp(root), None
                self._call(self._on_change, None)
                continue
            if events is not None:
                names = events.take()
                if names:
                    time.sleep(DEBOUNCE_S)
                    names |= events.take()
                    counted, last_write = events.count, time.monotonic()
                    stamp = dir_stamp(root)
                    self._call(self._on_change, names)
                    continue
            now = dir_stamp(root)
            if events is None:  # polling
                if now != stamp:
                    appeared = stamp is None
                    stamp, fresh = now, not stamp_settled(now)
                    self._call(self._on_change, None)
                    if appeared and now is not None and self._use_events:
                        stamp = self._watch_since(root, now)  # it appeared: events from now
                elif fresh and stamp_settled(now):
                    fresh = False  # a second write in the same clock tick would not show
                    self._call(self._on_change, None)
                continue
            if now != stamp and events.count == counted and \
                    time.monotonic() - events.last_at > EVENT_WAKE_S:
                stamp = now  # the directory moved with no event behind it: look at all
                self._call(self._on_change, None)
                continue
            stamp, counted = now, events.count
            if last_write is not None and time.monotonic() - last_write >= SETTLE_AFTER_S:
                last_write = None
                self._call(self._settle)
