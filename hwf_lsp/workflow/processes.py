"""A user's command (an agent, a channel delivery) run to its end, bounded in every way.

- The step ends when the command exits.  Its process group is then killed, so a child
  it left behind holding stdout (a background job, a forgotten `tee`) can neither
  keep the step waiting for an end of file that never comes (it used to be taken for a
  timeout) nor outlive it.  So is a descendant that left the group with `setsid`: it
  carries the command's environment mark or holds its pipes (`strays.py`).
- It dies with its runner: its own process group (the terminal's Ctrl-C reaches only
  the runner, which stops it at a clean point and kills the group), and on Linux
  PR_SET_PDEATHSIG(SIGKILL) so that even kill -9 of the runner (`hwf`, or the language
  server) takes it down.  Elsewhere a runner killed with -9 can leave it running; the
  runner records its pid so a resume does not start the same step twice.
- Output is bounded: stdout is kept up to a limit (the rest is counted and dropped),
  stderr only as a tail; the request is written without blocking, whatever its size.
- A stop check (cancel, interrupt) and a deadline are looked at every POLL_S.

POSIX only (pipes in a selector).
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from hwf_lsp.workflow import strays

POLL_S = 0.05
DRAIN_AFTER_EXIT_S = 1.0
"""After the command exits and its group is killed: how long to keep reading its pipes
(they close at once unless a process escaped the group with setsid)."""
STDERR_TAIL_BYTES = 4096
_READ = 1 << 16
PR_SET_PDEATHSIG = 1


class CommandStopped(Exception):
    """The stop check said stop: the command's group was killed."""


class CommandTimedOut(Exception):
    """The deadline passed: the command's group was killed."""


@dataclass(frozen=True, slots=True)
class Finished:
    returncode: int
    stdout: bytes
    """At most the stdout limit; `stdout_bytes` says how much the command wrote."""
    stdout_bytes: int
    stderr_tail: bytes


def _load_prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _load_prctl()  # resolved here: the child between fork and exec only calls it


def _die_with(parent: int) -> Callable[[], None] | None:
    """preexec_fn: SIGKILL this child when the thread that started it dies (Linux)."""
    prctl = _PRCTL
    if prctl is None:
        return None

    sigkill = int(signal.SIGKILL)

    def preexec() -> None:
        prctl(PR_SET_PDEATHSIG, sigkill)
        if os.getppid() != parent:  # the runner died before the line above
            os._exit(1)

    return preexec


def kill_group(pid: int) -> None:
    """SIGKILL the process group led by `pid` (and `pid` itself if it left the group).
    Only for a child not yet reaped (alive or a zombie): until then its pid, and with it
    the group id, cannot be reused by an unrelated process."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, signal.SIGKILL)


def group_alive(pgid: int) -> bool:
    """Whether any live (not zombie) process is in process group `pgid`."""
    if os.path.isdir("/proc/self"):
        try:
            names = [name for name in os.listdir("/proc") if name.isdigit()]
        except OSError:
            names = []
        for name in names:
            try:
                with open(f"/proc/{name}/stat", "rb") as handle:
                    fields = handle.read().rsplit(b")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if len(fields) > 2 and fields[0] != b"Z" and fields[2] == str(pgid).encode():
                return True
        return False
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def process_start(pid: int) -> int | None:
    """The start time of process `pid` (clock ticks since boot; Linux), None if unknown:
    with the pid, it names one process even after the pid is reused."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        return None if fields[0] == b"Z" else int(fields[19])
    except (OSError, IndexError, ValueError):
        return None


def still_running(pid: int, start: int | None) -> bool:
    """Whether process `pid` (started at `start`, see process_start) is alive; without a
    start time to compare, any live process with that pid counts (never a duplicate)."""
    now = process_start(pid)
    if now is not None:
        return start is None or now == start
    if os.path.isdir("/proc/self"):
        return False  # /proc is there and has no such (live) process
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class _Pump:
    """Feeds stdin and reads stdout/stderr of one process through one selector."""

    def __init__(self, proc: subprocess.Popen[bytes], payload: bytes, stdout_limit: int) -> None:
        self.proc = proc
        self.payload = memoryview(payload)
        self.stdout_limit = stdout_limit
        self.stdout = bytearray()
        self.stdout_bytes = 0
        self.stderr = bytearray()
        self.selector = selectors.DefaultSelector()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            assert stream is not None
            os.set_blocking(stream.fileno(), False)
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        if self.payload:
            self.selector.register(proc.stdin, selectors.EVENT_WRITE)
        else:
            proc.stdin.close()
        self.selector.register(proc.stdout, selectors.EVENT_READ)
        self.selector.register(proc.stderr, selectors.EVENT_READ)
        self.pidfd = self._pidfd(proc.pid)
        if self.pidfd is not None:
            self.selector.register(self.pidfd, selectors.EVENT_READ)

    @staticmethod
    def _pidfd(pid: int) -> int | None:
        """A descriptor that becomes readable when the process exits (Linux 5.3+)."""
        try:
            return os.pidfd_open(pid)  # type: ignore[attr-defined]
        except (AttributeError, OSError):
            return None

    @property
    def pipes_open(self) -> bool:
        return any(key.fileobj is not self.pidfd for key in self.selector.get_map().values())

    def step(self, timeout: float) -> None:
        for key, _ in self.selector.select(timeout):
            stream = key.fileobj
            if stream is self.pidfd:
                self.selector.unregister(stream)  # exited: proc.poll() reaps it
                continue
            if stream is self.proc.stdin:
                self._write()
                continue
            try:
                chunk = os.read(stream.fileno(), _READ)  # type: ignore[union-attr]
            except BlockingIOError:
                continue
            if not chunk:
                self._close(stream)
            elif stream is self.proc.stdout:
                self.stdout_bytes += len(chunk)
                room = self.stdout_limit - len(self.stdout)
                if room > 0:
                    self.stdout += chunk[:room]
            else:
                self.stderr += chunk
                del self.stderr[:-STDERR_TAIL_BYTES]

    def _write(self) -> None:
        stdin = self.proc.stdin
        try:
            written = os.write(stdin.fileno(), self.payload[:_READ])  # type: ignore[union-attr]
        except BlockingIOError:
            return
        except (BrokenPipeError, OSError):  # it exited or closed stdin without reading it all
            self._close(stdin)
            return
        self.payload = self.payload[written:]
        if not self.payload:
            self._close(stdin)

    def _close(self, stream: object) -> None:
        with contextlib.suppress(KeyError, ValueError):
            self.selector.unregister(stream)
        with contextlib.suppress(OSError):
            stream.close()  # type: ignore[attr-defined]

    def close(self) -> None:
        for key in list(self.selector.get_map().values()):
            if key.fileobj is not self.pidfd:
                self._close(key.fileobj)
        self.selector.close()
        if self.pidfd is not None:
            with contextlib.suppress(OSError):
                os.close(self.pidfd)
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            with contextlib.suppress(OSError):
                stream.close()  # type: ignore[union-attr]


def _exited(proc: subprocess.Popen[bytes]) -> bool:
    """Whether the child exited, leaving it unreaped (a zombie keeps its pid reserved)."""
    try:
        return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:  # reaped by someone else
        return True
    except (AttributeError, OSError):  # no waitid: reaping is the only way to look
        return proc.poll() is not None


def run_command(argv: list[str], payload: bytes, *, timeout_s: float,
                stdout_limit: int, stop: Callable[[], bool] | None = None,
                on_start: Callable[[int], None] | None = None,
                env: Mapping[str, str] | None = None) -> Finished:
    """Run `argv` with `payload` on stdin until it exits; OSError if it cannot start,
    CommandStopped / CommandTimedOut when stopped early (its group killed in every case).
    `on_start(pid)` is called once it runs (the pid also names its process group). `env`
    is added to this process's environment."""
    token = strays.new_token()  # marks every descendant, in a session of its own or not
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True,
                            preexec_fn=_die_with(os.getpid()),
                            env={**os.environ, **(env or {}), strays.TOKEN_ENV: token})
    pipes = strays.pipe_names(*(stream.fileno() for stream in (
        proc.stdin, proc.stdout, proc.stderr) if stream is not None))
    pump = _Pump(proc, payload, stdout_limit)
    try:
        if on_start is not None:
            on_start(proc.pid)
        deadline = time.monotonic() + timeout_s
        while not _exited(proc):
            if stop is not None and stop():
                raise CommandStopped
            left = deadline - time.monotonic()
            if left <= 0:
                raise CommandTimedOut
            pump.step(min(POLL_S, left))
        if proc.returncode is None:
            kill_group(proc.pid)  # the command is done; whatever it left behind goes with it
        _kill_strays(token, pipes, pump)
        drain_until = time.monotonic() + DRAIN_AFTER_EXIT_S
        while pump.pipes_open and (left := drain_until - time.monotonic()) > 0:
            pump.step(min(POLL_S, left))
        returncode = proc.wait()
        return Finished(returncode, bytes(pump.stdout), pump.stdout_bytes, bytes(pump.stderr))
    finally:
        if proc.returncode is None:
            kill_group(proc.pid)
            _kill_strays(token, pipes, pump)
            proc.wait()
        pump.close()


def _kill_strays(token: str, pipes: set[str], pump: _Pump) -> None:
    """Kill what left the command's group (setsid): by its mark; then, if the pipes are
    still held (a stray that cleared its environment), whoever holds them."""
    if not os.path.isdir("/proc/self"):
        return
    strays.kill(token)
    pump.step(0)
    if pump.pipes_open:
        time.sleep(POLL_S)  # the group's own processes close them as they die
        pump.step(0)
    if pump.pipes_open:
        strays.kill(token, pipes)
