"""Processes a command left behind outside its process group, found and killed (Linux).

Killing a command's process group misses a descendant that started a session of its
own (`setsid`, a daemonising agent): it is in no group of ours, and if it holds the
command's stdout it outlives the step.  Two marks find it without cgroups:

- the environment: every command gets `HWF_STEP_TOKEN=<random>`, which its descendants
  inherit (`/proc/<pid>/environ`, what the process was started with);
- the pipes: a process still holding the command's stdin, stdout or stderr pipe
  (`/proc/<pid>/fd`), even one that cleared its environment.

Only processes this user may look at are seen (all of them, for root).  Elsewhere (no
/proc) nothing is found, and the process group kill is all there is.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal

TOKEN_ENV = "HWF_STEP_TOKEN"


def new_token() -> str:
    """A fresh mark for one command's processes (the value of TOKEN_ENV)."""
    return secrets.token_hex(16)


def pipe_names(*fds: int) -> set[str]:
    """How /proc shows the pipes behind `fds` (`pipe:[inode]`)."""
    names = set()
    for fd in fds:
        with contextlib.suppress(OSError):
            names.add(f"pipe:[{os.fstat(fd).st_ino}]")
    return names


def _pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return []


def _carries(pid: int, mark: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            return mark in handle.read().split(b"\0")
    except OSError:
        return False


def _holds(pid: int, pipes: set[str]) -> bool:
    try:
        fds = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        return False
    for fd in fds:
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/{pid}/fd/{fd}") in pipes:
                return True
    return False


def find(token: str, pipes: set[str] = frozenset()) -> list[int]:
    """Pids (never this process) marked with `token`, or holding one of `pipes`."""
    mark = f"{TOKEN_ENV}={token}".encode()
    me = os.getpid()
    return [pid for pid in _pids() if pid != me and (
        _carries(pid, mark) or (pipes and _holds(pid, pipes)))]


def kill(token: str, pipes: set[str] = frozenset()) -> list[int]:
    """SIGKILL every process `find` names; the pids signalled."""
    killed = []
    for pid in find(token, pipes):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
    return killed
