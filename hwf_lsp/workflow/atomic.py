"""Atomic file writes: a reader sees the old file or the new one, never a partial one.

The canvas polls run state while the runner saves after every step; a plain
write truncates first, so a concurrent read could see half a file.  We write a
temp file in the destination directory (same filesystem, so `os.replace` is
atomic), fsync it, replace, then fsync the directory so the rename survives a
crash.  Temp files start with `.tmp-` so `sweep_temp_files` can find orphans
left by a process killed between write and replace.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
import time
from pathlib import Path
from typing import Any

TEMP_PREFIX = ".tmp-"


def temp_prefix_for(path: Path) -> str:
    """Temp files name their destination, so a sweep can target one file's orphans."""
    return f"{TEMP_PREFIX}{Path(path).name}."


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return  # platforms without directory fds: the rename is still atomic
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _take_mode_and_owner(fd: int, like: os.stat_result) -> None:
    """The replaced file's permission bits and group (and owner, when we may set it): a
    file a user rewrites stays as shared as it was (mkstemp creates 0600)."""
    for uid in (like.st_uid, -1):
        try:
            os.fchown(fd, uid, like.st_gid)
            break
        except OSError:
            continue  # not root: the owner is whoever writes; keep the group if we can
    os.fchmod(fd, stat.S_IMODE(like.st_mode))  # after chown, which may clear set-id bits


def atomic_write_bytes(path: Path, data: bytes, *, like: os.stat_result | None = None) -> None:
    """Replace `path` with `data` atomically and durably (fsync of the file and its directory).
    `like`: the stat of the file replaced, whose mode and group the new one keeps."""
    path = Path(path)
    directory = path.parent
    directory.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=temp_prefix_for(path), suffix=".part", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            if like is not None:
                _take_mode_and_owner(handle.fileno(), like)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except OSError:
            pass
        raise
    _fsync_dir(directory)


def dump_json(value: Any) -> bytes:
    """The on-disk JSON form shared by designs and runs: UTF-8, indented, key order kept."""
    text = json.dumps(value, ensure_ascii=False, indent=2, sort_keys=False, allow_nan=False)
    return (text + "\n").encode("utf-8")


_ENCODE = json.JSONEncoder(ensure_ascii=False, allow_nan=False).encode


def dump_state_json(value: Any) -> bytes:
    """The on-disk form of a run state: its fields and their entries one per line.

    The runner saves after every step.  `indent=2` runs the pure-Python encoder
    (0.30 ms for the 16 KB state of a 49-step run, against 0.06 ms compact): here the
    top-level fields and the entries of each top-level object or list get a line
    each (a log entry, an output), and every value below that is encoded compactly
    in C (0.12 ms).  Same JSON value; anything unusual (non-string keys) falls back to
    `dump_json`."""
    if not isinstance(value, dict) or not all(isinstance(key, str) for key in value):
        return dump_json(value)
    encode = _ENCODE
    parts: list[str] = []
    for key, item in value.items():
        name = encode(key)
        if isinstance(item, dict) and item:
            if not all(isinstance(inner, str) for inner in item):
                return dump_json(value)
            body = ",\n".join(f"    {encode(k)}: {encode(v)}" for k, v in item.items())
            parts.append(f"  {name}: {{\n{body}\n  }}")
        elif isinstance(item, list) and item:
            body = ",\n".join(f"    {encode(v)}" for v in item)
            parts.append(f"  {name}: [\n{body}\n  ]")
        else:
            parts.append(f"  {name}: {encode(item)}")
    return ("{\n" + ",\n".join(parts) + "\n}\n").encode("utf-8") if parts else b"{}\n"


def atomic_write_json(path: Path, value: Any, *, state: bool = False) -> None:
    """Serialise first (so a non-JSON value never touches the disk), then write atomically.

    `state`: a run state, written by `dump_state_json` (designs keep `dump_json`).
    Strict JSON in valid UTF-8 or nothing: NaN/Infinity or a lone surrogate -> ValueError
    (the runner keeps both out; this is the last line)."""
    try:
        data = dump_state_json(value) if state else dump_json(value)
    except UnicodeEncodeError:
        raise ValueError(f"{Path(path).name} not written: it would hold a lone surrogate, "
                         "which is not valid UTF-8") from None
    except ValueError as exc:
        raise ValueError(f"{Path(path).name} not written: {exc} (NaN and Infinity are not "
                         "JSON numbers)") from None
    atomic_write_bytes(path, data)


def sweep_temp_files(
    directory: Path, *, older_than: float = 0.0, target: str | None = None
) -> list[Path]:
    """Remove orphan `.tmp-*` files older than `older_than` seconds; return what was removed.

    A writer in flight owns a young temp file, so a sweep that may race live
    writers (store open) passes a grace period.  `target` limits the sweep to
    the temp files of one destination name: under a run's lock nobody else can
    be writing that run, so its orphans can go at once (before resume).
    """
    prefix = TEMP_PREFIX if target is None else f"{TEMP_PREFIX}{target}."
    directory = Path(directory)
    removed: list[Path] = []
    try:
        entries = list(os.scandir(directory))
    except FileNotFoundError:
        return removed
    now = time.time()
    for entry in entries:
        if not entry.name.startswith(prefix):
            continue
        try:
            if not entry.is_file(follow_symlinks=False):
                continue
            if now - entry.stat(follow_symlinks=False).st_mtime < older_than:
                continue
            os.unlink(entry.path)
        except FileNotFoundError:
            continue  # its writer renamed or removed it meanwhile
        removed.append(Path(entry.path))
    return removed
