"""One runner per run at a time: an advisory lock file per run.

Two runners advancing the same run would each persist their own view and one
update would be lost.  `flock` is released by the kernel when the holder dies,
so a runner killed with -9 never leaves a run locked forever.
"""

from __future__ import annotations

import os
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


class RunLock:
    """`with RunLock(runs_root, run_id):` — exclusive, non-blocking; RunBusyError if held."""

    __slots__ = ("path", "run_id", "_fd")

    def __init__(self, runs_root: Path, run_id: str) -> None:
        self.run_id = check_run_id(run_id)
        self.path = safe_child(Path(runs_root) / LOCKS_DIRNAME, f"{run_id}.lock")
        self._fd: int | None = None

    def acquire(self) -> RunLock:
        if self._fd is not None:
            raise RuntimeError(f"lock on run {self.run_id} is already held by this object")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise RunBusyError(self.run_id) from None
            except OSError:
                os.close(fd)
                raise
        self._fd = fd
        return self

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            except OSError:
                pass
        os.close(fd)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()
