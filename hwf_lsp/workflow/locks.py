"""One runner per run at a time: an advisory lock file per run.

Two runners advancing the same run would each persist their own view and one
update would be lost.  `flock` is released by the kernel when the holder dies,
so a runner killed with -9 never leaves a run locked forever.

A lock file can be deleted while it is held (a cleanup script, `rm -r .locks`); the
next runner would then create and lock a new file and get in.  So on Linux the holder
also binds an abstract Unix socket named after the runs directory and the run: it has
no file to delete, and the kernel frees it when the holder dies, as it does the flock.
And after `flock` the path is checked to still name the file locked (a file deleted and
re-created between our open and our lock would be a lock nobody else sees).
"""

from __future__ import annotations

import errno
import hashlib
import os
import socket
import sys
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

from hwf_lsp.workflow.names import check_run_id, safe_child

LOCKS_DIRNAME = ".locks"


class RunBusyError(RuntimeError):
    """Another runner holds the run's lock."""

    def __init__(self, run_id: str, why: str = "another runner is advancing it") -> None:
        super().__init__(f"run {run_id} is busy: {why}")
        self.run_id = run_id


LOCK_ATTEMPTS = 5
"""Tries when the lock file keeps being replaced under us (then: busy)."""


def _bind_run_socket(runs_root: Path, run_id: str) -> socket.socket | None:
    """The undeletable half of the lock (Linux): RunBusyError if another holder has it;
    None where abstract sockets do not exist (the flock alone holds then)."""
    if not sys.platform.startswith("linux"):
        return None
    where = os.path.realpath(runs_root)
    name = hashlib.sha256(f"{where}\0{run_id}".encode()).hexdigest()[:40]
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # not inherited by agents
    try:
        sock.bind(f"\0hwf-run-lock-{name}")
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise RunBusyError(run_id) from None
        return None
    return sock


class RunLock:
    """`with RunLock(runs_root, run_id):` — exclusive, non-blocking; RunBusyError if held."""

    __slots__ = ("path", "run_id", "_fd", "_sock", "_root")

    def __init__(self, runs_root: Path, run_id: str) -> None:
        self.run_id = check_run_id(run_id)
        self._root = Path(runs_root)
        self.path = safe_child(self._root / LOCKS_DIRNAME, f"{run_id}.lock")
        self._fd: int | None = None
        self._sock: socket.socket | None = None

    def acquire(self) -> RunLock:
        if self._fd is not None:
            raise RuntimeError(f"lock on run {self.run_id} is already held by this object")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        sock = _bind_run_socket(self._root, self.run_id)
        try:
            self._fd = self._lock_file()
        except BaseException:
            if sock is not None:
                sock.close()
            raise
        self._sock = sock
        return self

    def _lock_file(self) -> int:
        for _ in range(LOCK_ATTEMPTS):
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
            if fcntl is None:
                return fd
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise RunBusyError(self.run_id) from None
            except OSError:
                os.close(fd)
                raise
            if self._names(fd):
                return fd
            os.close(fd)  # deleted or replaced between open and flock: lock the new one
        raise RunBusyError(self.run_id, "its lock file keeps being replaced")

    def _names(self, fd: int) -> bool:
        """Whether the lock path still names the file `fd` has open."""
        try:
            on_disk = os.stat(self.path)
        except FileNotFoundError:
            return False
        held = os.fstat(fd)
        return (on_disk.st_dev, on_disk.st_ino) == (held.st_dev, held.st_ino)

    def release(self) -> None:
        fd, self._fd = self._fd, None
        sock, self._sock = self._sock, None
        if fd is not None:
            if fcntl is not None:
                try:
                    fcntl.flock(fd, fcntl.LOCK_UN)
                except OSError:
                    pass
            os.close(fd)
        if sock is not None:
            sock.close()

    @property
    def held(self) -> bool:
        return self._fd is not None

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
