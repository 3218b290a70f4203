"""Run locks hold: another local user cannot hold one, they never leave the runs folder,
and deleting a held lock file lets no second runner in.

The lock's abstract socket name is a hash of the runs path and the run id, both
knowable (`workflow-runs` is 0755), so any local user could bind it and keep a run
"busy" forever; the lock file (0644 in a 0755 `.locks`) could be flocked by anyone too.
A `.locks` replaced by a symlink put lock files wherever it pointed.
The other user is uid 65534 (nobody), in a forked child that drops root.
"""

from __future__ import annotations

import os
import shutil
import socket
import stat
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hwf_lsp.workflow.locks import RunBusyError, RunLock, UnsafeLocksDir, socket_name

NOBODY = 65534
RUN_ID = "abcdef012345"

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux locks"),
    pytest.mark.skipif(os.geteuid() != 0, reason="needs root to act as another user"),
]


def as_nobody(action, *, keep_fd: int | None = None) -> tuple[int, int]:
    """Fork a child that becomes uid 65534, runs `action()` (returns its exit code), then
    sleeps holding whatever it made; (pid, read end of its ready pipe)."""
    ready_r, ready_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 70
        try:
            os.close(ready_r)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            code = action()
            os.write(ready_w, bytes([code]))
            time.sleep(60)
        finally:
            os._exit(code)
    os.close(ready_w)
    return pid, ready_r


def wait_ready(pid: int, ready: int) -> int:
    code = os.read(ready, 1)
    os.close(ready)
    assert code, "the other user's process died before it was ready"
    return code[0]


def end(pid: int) -> None:
    os.kill(pid, 9)
    os.waitpid(pid, 0)


@pytest.fixture
def traversable_runs() -> Iterator[Path]:
    """A runs folder another user can reach, as `~/.hermes/workflow-runs` usually is (in a
    temp dir of its own: pytest's are closed to other users)."""
    home = Path(tempfile.mkdtemp(prefix="hwf-locks-"))
    home.chmod(0o755)
    root = home / "workflow-runs"
    root.mkdir(mode=0o755)
    try:
        yield root
    finally:
        shutil.rmtree(home, ignore_errors=True)


def test_another_user_binding_the_lock_socket_does_not_make_the_run_busy(
        traversable_runs: Path) -> None:
    root = traversable_runs
    name = socket_name(root, RUN_ID)
    squatter = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)

    def squat() -> int:
        squatter.bind(name)
        squatter.listen(8)
        return 0

    pid, ready = as_nobody(squat)
    try:
        assert wait_ready(pid, ready) == 0
        with RunLock(root, RUN_ID):  # was: RunBusyError, for as long as the squatter lived
            with pytest.raises(RunBusyError):  # our own second runner is still refused
                RunLock(root, RUN_ID).acquire()
    finally:
        end(pid)
        squatter.close()


def test_another_user_cannot_open_or_keep_a_lock_file(traversable_runs: Path) -> None:
    root = traversable_runs
    with RunLock(root, RUN_ID) as held:
        locks = held.path.parent
        assert stat.S_IMODE(locks.stat().st_mode) == 0o700
        assert stat.S_IMODE(held.path.stat().st_mode) == 0o600

    def try_to_lock() -> int:
        try:
            os.open(held.path, os.O_RDONLY)
        except PermissionError:
            return 0
        return 1

    pid, ready = as_nobody(try_to_lock)
    try:
        assert wait_ready(pid, ready) == 0, "the other user opened the lock file"
    finally:
        end(pid)
    # a descriptor opened before the folder was closed to others (an older hwf, a race):
    # flocked by the other user only, the lock file is replaced, not obeyed
    import fcntl

    fd = os.open(held.path, os.O_RDONLY)

    def hold_it() -> int:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return 0

    pid, ready = as_nobody(hold_it)
    os.close(fd)
    try:
        assert wait_ready(pid, ready) == 0
        with RunLock(root, RUN_ID):
            with pytest.raises(RunBusyError):
                RunLock(root, RUN_ID).acquire()
    finally:
        end(pid)


def test_a_locks_folder_replaced_by_a_symlink_is_refused(tmp_path) -> None:
    root = tmp_path / "workflow-runs"
    root.mkdir()
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (root / ".locks").symlink_to(outside)
    with pytest.raises(UnsafeLocksDir, match="not a directory .*outside the runs folder"):
        RunLock(root, RUN_ID).acquire()
    assert list(outside.iterdir()) == []
    (root / ".locks").unlink()
    (root / ".locks").mkdir()
    (root / ".locks" / f"{RUN_ID}.lock").symlink_to(outside / "planted.lock")
    with pytest.raises(ValueError, match="symlink|escapes"):  # refused before it is opened
        RunLock(root, RUN_ID).acquire()
    assert list(outside.iterdir()) == []


def test_hwf_says_why_it_refuses_a_symlinked_locks_folder(tmp_path) -> None:
    from hostile import agent_design, hwf

    from hwf_lsp.workflow.runner import Runner
    from hwf_lsp.workflow.stores import RunStore

    home = tmp_path / "home"
    runs = RunStore(home / "workflow-runs")
    run_id = Runner(runs).start(agent_design("park", agents=1))["run_id"]
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (runs.root / ".locks").rename(tmp_path / "old-locks")
    (runs.root / ".locks").symlink_to(outside)
    done = hwf("respond", run_id, "--output", "hi", home=home)
    assert done.code == 2, done.text
    assert "refusing to make lock files there" in done.stderr, done.text
    assert "Traceback" not in done.stderr
    assert list(outside.iterdir()) == []


def test_deleting_a_held_lock_file_does_not_let_a_second_runner_in(tmp_path: Path) -> None:
    root = tmp_path / "workflow-runs"
    with RunLock(root, "abcdef") as held:
        held.path.unlink()
        with pytest.raises(RunBusyError):
            RunLock(root, "abcdef").acquire()
        held.path.parent.rename(root / ".locks-gone")  # the whole directory, too
        with pytest.raises(RunBusyError):
            RunLock(root, "abcdef").acquire()
    with RunLock(root, "abcdef"):  # released: free again
        pass
