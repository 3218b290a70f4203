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

Other local users must not be able to hold our lock (a run kept "busy" forever; runs are
listable, `workflow-runs` is 0755):
- `.locks` is a directory of ours, mode 0700, opened with O_NOFOLLOW (a symlink in its
  place would put lock files outside the runs folder: refused, `UnsafeLocksDir`), and lock
  files are created in it 0600 without following links, so nobody else can open one;
- anyone can bind an abstract socket name, so a name already bound counts only when its
  holder is this user (SO_PEERCRED of a connection to it; the holder listens);
- a lock file flocked only by processes of other users (a descriptor opened before the
  directory was closed to them) is replaced by a fresh one (/proc/locks names holders).
"""

from __future__ import annotations

import errno
import hashlib
import logging
import os
import socket
import struct
import sys
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

from hwf_lsp.rules.names import check_run_id
from hwf_lsp.workflow.paths import safe_child

LOCKS_DIRNAME = ".locks"
log = logging.getLogger(__name__)
O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


class UnsafeLocksDir(ValueError):
    """`.locks` is not a plain directory of this user's (a symlink, a file, someone
    else's): no lock file is made there."""


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
    name = socket_name(runs_root, run_id)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # not inherited by agents
    try:
        sock.bind(name)
        sock.listen(128)  # so a contender can ask who holds it (never accepted)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE and _holder_uid(name) == os.geteuid():
            raise RunBusyError(run_id) from None
        # someone else's (or unverifiable): it proves nothing; the flock decides
        return None
    return sock


def socket_name(runs_root: Path, run_id: str) -> str:
    """The abstract socket name of a run's lock (Linux)."""
    where = os.path.realpath(runs_root)
    digest = hashlib.sha256(f"{where}\0{run_id}".encode()).hexdigest()[:40]
    return f"\0hwf-run-lock-{digest}"


def _holder_uid(name: str) -> int | None:
    """The uid of whoever listens on abstract socket `name` (SO_PEERCRED), or None when it
    cannot be told (not listening, backlog full)."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.setblocking(False)
        probe.connect(name)
        _pid, uid, _gid = struct.unpack("3i", probe.getsockopt(
            socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
        return uid
    except OSError:
        return None
    finally:
        probe.close()


def _flock_holders(st: os.stat_result) -> list[int]:
    """Pids holding a flock on the file of `st` (Linux /proc/locks; else none known)."""
    wanted = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as locks:
            lines = locks.read().splitlines()
    except OSError:
        return []
    pids = []
    for line in lines:
        fields = line.split()
        if "FLOCK" in fields and wanted in fields:
            at = fields.index(wanted)
            if fields[at - 1].lstrip("-").isdigit():
                pids.append(int(fields[at - 1]))
    return pids


def _uid_of(pid: int) -> int | None:
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except OSError:
        return None


def _only_others_hold(fd: int) -> bool:
    """Whether the flock on `fd`'s file is held only by processes of other users."""
    holders = _flock_holders(os.fstat(fd))
    me = os.geteuid()
    return bool(holders) and all((uid := _uid_of(pid)) is not None and uid != me
                                 for pid in holders)


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
        where = self._locks_dir()
        try:
            sock = _bind_run_socket(self._root, self.run_id)
            try:
                self._fd = self._lock_file(where)
            except BaseException:
                if sock is not None:
                    sock.close()
                raise
        finally:
            os.close(where)
        self._sock = sock
        return self

    def _locks_dir(self) -> int:
        """An open descriptor of `.locks`, made if missing: a directory of this user's,
        closed to everyone else (0700), reached without following a symlink."""
        locks = self.path.parent
        try:
            locks.mkdir(mode=0o700, parents=True)
        except FileExistsError:
            pass
        try:
            fd = os.open(locks, os.O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise UnsafeLocksDir(
                    f"{locks} is not a directory (a symlink or a file): refusing to make "
                    f"lock files there, outside the runs folder; remove it") from None
            raise
        st = os.fstat(fd)
        if st.st_uid != os.geteuid():
            os.close(fd)
            raise UnsafeLocksDir(f"{locks} belongs to uid {st.st_uid}, not to this user: "
                                 "refusing to take run locks there")
        if st.st_mode & 0o077:
            os.fchmod(fd, 0o700)  # made before locks were closed to others
        return fd

    def _lock_file(self, where: int) -> int:
        name = self.path.name
        for _ in range(LOCK_ATTEMPTS):
            try:
                fd = os.open(name, os.O_RDWR | os.O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600,
                             dir_fd=where)
            except OSError as exc:
                if exc.errno == errno.ELOOP:
                    raise UnsafeLocksDir(f"{self.path} is a symlink: refusing to follow it "
                                         "for a run lock") from None
                raise
            if fcntl is None:
                return fd
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                squatted = _only_others_hold(fd)
                os.close(fd)
                if not squatted:
                    raise RunBusyError(self.run_id) from None
                log.warning("run %s: its lock file is held only by other users' processes: "
                            "replacing it", self.run_id)
                _unlink_at(name, where)
                continue
            except OSError:
                os.close(fd)
                raise
            if self._names(fd, where):
                if os.fstat(fd).st_mode & 0o077:
                    os.fchmod(fd, 0o600)  # made before locks were closed to others
                return fd
            os.close(fd)  # deleted or replaced between open and flock: lock the new one
        raise RunBusyError(self.run_id, "its lock file keeps being replaced")

    def _names(self, fd: int, where: int) -> bool:
        """Whether the lock path still names the file `fd` has open."""
        try:
            on_disk = os.stat(self.path.name, dir_fd=where, follow_symlinks=False)
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


def _unlink_at(name: str, where: int) -> None:
    try:
        os.unlink(name, dir_fd=where)
    except FileNotFoundError:
        pass
