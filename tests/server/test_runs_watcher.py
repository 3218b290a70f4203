"""RunsWatcher: file events (watchdog) or the directory-stamp poll; quiet when nothing changes."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

from hwf_lsp.server.runs import watcher as watcher_mod
from hwf_lsp.server.runs.watcher import RunsWatcher

MODES = [pytest.param(True, id="events"), pytest.param(False, id="poll")]
SEEN_WITHIN_S = 3.0
"""The 300 ms target (bench/README.md) for a run written elsewhere, with 10x headroom (a
loaded machine delays a thread's wake; events still name the file, the poll says None)."""


def write_atomic(path: Path, payload: object) -> None:
    tmp = path.with_name(f".tmp-{path.name}")
    tmp.write_text(json.dumps(payload))
    os.replace(tmp, path)


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[float, set[str] | None]] = []
        self.lock = threading.Lock()

    def __call__(self, files: set[str] | None) -> None:
        with self.lock:
            self.calls.append((time.monotonic(), None if files is None else set(files)))

    def wait(self, count: int, timeout: float = 10.0) -> list[tuple[float, set[str] | None]]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.calls) >= count:
                    return list(self.calls)
            time.sleep(0.005)
        return list(self.calls)


def start(tmp_path: Path, events: bool, recorder: Recorder, **kw) -> RunsWatcher:
    watcher = RunsWatcher(lambda: tmp_path, recorder, interval=0.02, events=events, **kw)
    watcher.start()
    deadline = time.monotonic() + 3
    while events and not watcher.using_events and time.monotonic() < deadline:
        time.sleep(0.01)
    assert watcher.using_events is events
    return watcher


@pytest.mark.parametrize("events", MODES)
def test_a_write_is_seen_at_once_and_only_once(tmp_path, events) -> None:
    """Events name the file; the poll says "look at everything" (None)."""
    os.utime(tmp_path, (time.time() - 5,) * 2)
    recorder = Recorder()
    watcher = start(tmp_path, events, recorder)
    try:
        time.sleep(0.15)
        assert recorder.calls == []  # nothing changed: nothing to tell
        written = time.monotonic()
        write_atomic(tmp_path / "abcdef.json", {})
        calls = recorder.wait(1, timeout=SEEN_WITHIN_S + 1)
        assert calls and calls[0][0] - written < SEEN_WITHIN_S
        assert calls[0][1] == ({"abcdef.json"} if events else None)
        time.sleep(0.2)
        seen = len(recorder.calls)
        # events: one call; poll: the temp file's creation, the rename, once more settled
        assert seen == 1 if events else seen <= 3
        time.sleep(0.2)
        assert len(recorder.calls) == seen  # and then quiet
    finally:
        watcher.stop()


def test_events_see_in_place_writes_and_removals_and_ignore_temp_files(tmp_path) -> None:
    run = tmp_path / "abcdef.json"
    write_atomic(run, {"i": 0})
    recorder = Recorder()
    watcher = start(tmp_path, True, recorder)
    try:
        (tmp_path / ".tmp-x.json.1").write_text("{")
        (tmp_path / "notes.txt").write_text("x")
        time.sleep(0.1)
        assert recorder.calls == []
        run.write_text(json.dumps({"i": 1}))  # in place: the directory's mtime stays
        assert recorder.wait(1)[-1][1] == {"abcdef.json"}
        run.unlink()
        assert recorder.wait(2)[-1][1] == {"abcdef.json"}
    finally:
        watcher.stop()


def test_events_settle_once_after_writes_stop(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(watcher_mod, "SETTLE_AFTER_S", 0.1)
    monkeypatch.setattr(watcher_mod, "EVENT_WAKE_S", 0.05)
    settled = []
    recorder = Recorder()
    watcher = start(tmp_path, True, recorder, settle=lambda: settled.append(time.monotonic()))
    try:
        for i in range(3):
            write_atomic(tmp_path / "abcdef.json", {"i": i})
            time.sleep(0.01)
        recorder.wait(1)
        time.sleep(0.5)
        assert len(settled) == 1
    finally:
        watcher.stop()


@pytest.mark.parametrize("events", MODES)
def test_watcher_follows_a_new_hermes_home(tmp_path, events) -> None:
    homes = [tmp_path / "one", tmp_path / "two"]
    for home in homes:
        home.mkdir()
    current = [homes[0]]
    recorder = Recorder()
    watcher = RunsWatcher(lambda: current[0], recorder, interval=0.02, events=events)
    watcher.start()
    try:
        time.sleep(0.1)
        assert recorder.calls == []
        current[0] = homes[1]  # hwf.hermesHome changed: other runs, so a change
        watcher._wake.set()
        assert recorder.wait(1)[0][1] is None
    finally:
        watcher.stop()


def test_a_runs_dir_that_appears_later_is_watched(tmp_path) -> None:
    root = tmp_path / "workflow-runs"
    recorder = Recorder()
    watcher = RunsWatcher(lambda: root, recorder, interval=0.02, events=True)
    watcher.start()
    try:
        time.sleep(0.1)
        root.mkdir()
        write_atomic(root / "abcdef.json", {})
        assert recorder.wait(1)
        deadline = time.monotonic() + 2
        while not watcher.using_events and time.monotonic() < deadline:
            time.sleep(0.01)
        assert watcher.using_events
    finally:
        watcher.stop()


def test_without_watchdog_the_watcher_polls(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(watcher_mod, "start_events", lambda root, wake: None)
    recorder = Recorder()
    watcher = RunsWatcher(lambda: tmp_path, recorder, interval=0.02)
    watcher.start()
    try:
        time.sleep(0.05)
        assert not watcher.using_events
        write_atomic(tmp_path / "abcdef.json", {})
        assert recorder.wait(1)[0][1] is None
    finally:
        watcher.stop()


def test_the_history_is_primed_without_waiting_for_the_runner_import(monkeypatch) -> None:
    """Run-aware answers wait for the watcher's prime only: the runner (for the first run
    command) is imported on another thread, after the watcher started."""
    import asyncio

    from hwf_lsp.server import server as server_mod

    importing = threading.Event()
    release = threading.Event()

    def slow_import() -> None:
        importing.set()
        release.wait(5)

    monkeypatch.setattr(server_mod, "_import_runner", slow_import)
    server = server_mod.HwfServer()
    primed = threading.Event()
    monkeypatch.setattr(server.runs_watcher, "_prime", primed.set)

    async def initialized() -> bool:
        task = asyncio.ensure_future(server.start_watching_runs())
        seen = await asyncio.to_thread(primed.wait, 3)
        release.set()
        await task
        return seen

    try:
        assert asyncio.run(initialized())
        assert importing.is_set()
    finally:
        release.set()
        server.runs_watcher.stop()


@pytest.mark.parametrize("when", ["while priming", "as the directory appears"])
def test_a_write_before_the_events_start_is_seen_at_once(tmp_path, monkeypatch, when) -> None:
    """A run written between the watcher's last look and the start of its file events is
    named by no event; it is seen as soon as the events start, not a stamp check later."""
    root = tmp_path / "workflow-runs"
    if when == "while priming":
        root.mkdir()
        os.utime(root, (time.time() - 5,) * 2)
    real_start = watcher_mod.start_events

    def late_start(where, wake):
        write_atomic(where / "late.json", {})  # just before the observer starts
        return real_start(where, wake)

    monkeypatch.setattr(watcher_mod, "start_events", late_start)
    # a stamp check would come one wake later: make that 10 s, so "at once" (under half
    # of it) has 10x headroom on a loaded machine
    monkeypatch.setattr(watcher_mod, "EVENT_WAKE_S", 10.0)
    recorder = Recorder()
    watcher = RunsWatcher(lambda: root, recorder, interval=0.02, events=True)
    watcher.start()
    try:
        if when == "as the directory appears":
            time.sleep(0.1)
            root.mkdir()
        started = time.monotonic()
        calls = recorder.wait(1 if when == "while priming" else 2, timeout=8)
        assert calls and calls[-1][0] - started < watcher_mod.EVENT_WAKE_S / 2, calls
        assert watcher.using_events
    finally:
        watcher.stop()
