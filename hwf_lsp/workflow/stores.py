"""DesignStore and RunStore: designs and runs as JSON files under $HERMES_HOME.

Designs live at `workflow-designs/<name>.json`, runs at `workflow-runs/<run_id>.json`
(spec).  Every write is atomic (see atomic.py).  The store re-validates a design
before writing it: a second line of defence, not a second rulebook.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import secrets
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hwf_lsp.rules.defects import format_defects
from hwf_lsp.rules.names import check_design_name, check_run_id
from hwf_lsp.rules.validator import validate_designer_graph
from hwf_lsp.workflow.atomic import atomic_write_bytes, atomic_write_json, sweep_temp_files
from hwf_lsp.workflow.paths import hermes_home, safe_child

if TYPE_CHECKING:
    from hwf_lsp.workflow.run_index import RunIndex

log = logging.getLogger(__name__)

DESIGNS_DIRNAME = "workflow-designs"
RUNS_DIRNAME = "workflow-runs"
OPEN_SWEEP_GRACE_S = 300.0
"""At store open other processes may be mid-write; only temp files this old are orphans."""


@dataclass(frozen=True, slots=True)
class StoreReadError:
    """A file `recent()` could not read, so it can be reported instead of crashing."""

    path: Path
    message: str


MAX_DESIGN_FILE_BYTES = 64 * 1024 * 1024
"""The largest design file read: twice the largest design the corpus checks (30 MB, 500 000
nodes, 84 s to diagnose), far past MAX_NODES (50) of real prose.  A bigger file is refused
before it is read, so a symlink to a huge file cannot exhaust memory."""
MAX_RUN_FILE_BYTES = 256 * 1024 * 1024
"""The largest run file read.  With stored outputs capped (runner.MAX_OUTPUT_BYTES, 1 MiB)
a run of MAX_NODES steps holds at most ~50 outputs, their copy in an output step and the
context of a parked step: ~150 MiB.  Past that the file is not ours (a 2 GB sparse file
peaked `hwf runs` at 4.1 GB of RSS); it is listed as unreadable instead."""
_READ_CHUNK = 1 << 20

_FILE_KINDS = (
    (stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _not_regular(mode: int) -> str:
    kind = next((name for test, name in _FILE_KINDS if test(mode)), "not a regular file")
    return f"is unreadable: {kind}, not a regular file"


def _open_flags() -> int:
    """Read-only; O_NONBLOCK so opening a FIFO without a writer (or a terminal) returns at
    once instead of waiting for one; O_NOCTTY so a terminal never becomes ours."""
    flags = os.O_RDONLY
    for name in ("O_NONBLOCK", "O_NOCTTY", "O_CLOEXEC", "O_BINARY"):
        flags |= getattr(os, name, 0)
    return flags


def _too_large(size: int, limit: int) -> ValueError:
    return ValueError(f"is unreadable: {size:,} bytes or more, over the limit of {limit:,} "
                      "bytes for this kind of file")


def store_child(root: Path, filename: str) -> Path:
    """`names.safe_child`, with a symlink loop a ValueError like any other bad entry.

    Resolving a link that points at itself raises RuntimeError (Python 3.11/3.12) or
    OSError ELOOP (3.13+); callers handle ValueError for a name that cannot be used, so
    one looping link is a clear error ("… is unreadable: a symlink loop"), never an
    internal one, and a listing can skip it with that reason."""
    try:
        return safe_child(root, filename)
    except (RuntimeError, OSError) as exc:
        reason = "a symlink loop" if isinstance(exc, RuntimeError) or getattr(
            exc, "errno", None) == errno.ELOOP else (exc.strerror or str(exc))
        raise ValueError(f"{root / filename} is unreadable: {reason}") from None


def describe_os_error(exc: OSError) -> str:
    """One line for a failed file operation, as people read it: `No space left on device:
    /…/workflow-runs/.tmp-…` (the CLI's errors and the server's answers alike)."""
    what = exc.strerror or str(exc) or type(exc).__name__
    return f"{what}: {exc.filename}" if exc.filename else what


def read_file_bytes(path: Path | str, *, limit: int = MAX_DESIGN_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most `limit` bytes.

    Every design and run file is read here, so nothing the project reads can hang it or
    exhaust its memory: the file is opened non-blocking and `fstat`ed, and anything but a
    regular file (a FIFO, /dev/zero, /dev/stdin, a socket, a directory; symlinks are
    followed, so the target counts) is refused before a byte is read; a file over `limit`
    (checked on its size and again while reading, for a file that grows) likewise.
    Missing -> FileNotFoundError; anything else -> ValueError "is unreadable: …"."""
    try:
        fd = os.open(path, _open_flags())
    except FileNotFoundError:
        raise
    except IsADirectoryError:
        raise ValueError(_not_regular(stat.S_IFDIR)) from None
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a socket, or a FIFO that refuses readers
            raise ValueError("is unreadable: a socket or device, not a regular file") from None
        raise ValueError(f"is unreadable: {exc.strerror or exc}") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(_not_regular(info.st_mode))
        if info.st_size > limit:
            raise _too_large(info.st_size, limit)
        chunks: list[bytes] = []
        total, request = 0, min(limit, info.st_size) + 1  # one read, if fstat told the truth
        while request > 0:
            chunk = os.read(fd, request)
            chunks.append(chunk)
            total += len(chunk)
            if len(chunk) < request:  # a short read of a regular file: its end
                break
            request = min(_READ_CHUNK, limit + 1 - total)  # it grew since fstat: read on
        if total > limit:
            raise _too_large(total, limit)
        return b"".join(chunks)
    except OSError as exc:
        raise ValueError(f"is unreadable: {exc.strerror or exc}") from exc
    finally:
        os.close(fd)


def read_text_file(path: Path | str, *, limit: int = MAX_DESIGN_FILE_BYTES) -> str:
    """A design or run file's text, one UTF-8 BOM dropped (as editors drop it, so offsets
    line up); read by `read_file_bytes` (regular files of at most `limit` bytes only).
    Missing -> FileNotFoundError; otherwise unreadable -> ValueError whose message follows
    the file's name ("is unreadable: a named pipe (FIFO), not a regular file", "is not
    valid UTF-8 (byte 3)")."""
    raw = read_file_bytes(path, limit=limit)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"is not valid UTF-8 (byte {exc.start})") from None


def _read_json_object(path: Path, what: str, limit: int) -> dict[str, Any]:
    """Read a JSON object: missing -> FileNotFoundError; anything else wrong -> ValueError."""
    try:
        text = read_text_file(path, limit=limit)
    except FileNotFoundError:
        raise FileNotFoundError(f"{what} not found: {path}") from None
    except ValueError as exc:
        raise ValueError(f"{what} {exc}") from exc
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{what} is corrupt: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except RecursionError:
        raise ValueError(f"{what} is corrupt: nested too deeply") from None
    except ValueError as exc:  # e.g. a number of more than 4300 digits
        raise ValueError(f"{what} is corrupt: {exc}") from None
    if not isinstance(value, dict):
        raise ValueError(f"{what} is corrupt: expected a JSON object, got {type(value).__name__}")
    return value


def written_as_is(name: str, design: dict[str, Any], text: str) -> bool:
    """Whether `DesignStore.save(name, design, text)` writes `text` as it is: it is the
    JSON of `design`, in valid UTF-8, and names the design `name`."""
    if design.get("name") != name:
        return False
    try:
        text.encode("utf-8")
        return json.loads(text) == design
    except ValueError:  # not JSON, or a lone surrogate
        return False


def stored_form(name: str, design: dict[str, Any]) -> dict[str, Any]:
    """What `DesignStore.save` writes for `design`: its `name` filled in when it has none
    (so a caller can know the written text without reading the file back)."""
    return {"name": name, **design} if design.get("name") is None else design


class DesignStore:
    """Designs by name.  `save` refuses a design with defects."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        sweep_temp_files(self.root, older_than=OPEN_SWEEP_GRACE_S)

    @classmethod
    def at_home(cls, home: Path | None = None) -> DesignStore:
        return cls((hermes_home() if home is None else Path(home)) / DESIGNS_DIRNAME)

    def path(self, name: str) -> Path:
        return store_child(self.root, f"{check_design_name(name)}.json")

    def save(self, name: str, design: dict[str, Any], text: str | None = None) -> Path:
        """Validate, then write atomically.  The file's `name` is the store name.

        `text`: the design's own text (an editor's draft, edited in place): written as it
        is, so the file differs from the last copy by the user's change only, when it
        holds `design` and names it; else the store's own form is written."""
        path = self.path(name)
        if not isinstance(design, dict):
            raise ValueError(f"design {name!r} must be a JSON object")
        inner = design.get("name")
        if inner is not None and inner != name:
            raise ValueError(
                f"design {name!r} says its name is {inner!r}; the two must agree"
            )
        defects = validate_designer_graph(design)
        if defects:
            raise ValueError(format_defects(f"design {name!r}", defects))
        if text is not None and written_as_is(name, design, text):
            atomic_write_bytes(path, text.encode("utf-8"))
        else:
            atomic_write_json(path, stored_form(name, design))
        return path

    def load(self, name: str) -> dict[str, Any]:
        return _read_json_object(self.path(name), f"design {name!r}", MAX_DESIGN_FILE_BYTES)

    def list(self) -> list[str]:
        """Names of the stored designs, sorted; files with illegal names are ignored."""
        try:
            entries = os.listdir(self.root)
        except FileNotFoundError:
            return []
        names = []
        for entry in entries:
            if not entry.endswith(".json"):
                continue
            try:
                names.append(check_design_name(entry[: -len(".json")]))
            except ValueError:
                continue
        return sorted(names)


class RunStore:
    """Run states by run id, shared by every surface (canvas, chat, cron, CLI, editor)."""

    def __init__(self, root: Path, *, short_lived: bool = False) -> None:
        self.root = Path(root)
        self.short_lived = short_lived
        """A process that lists and exits (`hwf`): an index another process holds locked
        is waited for briefly, then the listing goes on without it (run_index.SHORT_WAIT_S)."""
        self._swept = False
        """Orphan temp files are swept before this store's first write, not at open: a
        listing must not cost a readdir of the whole history."""
        self._index: RunIndex | None = None

    @classmethod
    def at_home(cls, home: Path | None = None) -> RunStore:
        return cls((hermes_home() if home is None else Path(home)) / RUNS_DIRNAME)

    @staticmethod
    def new_run_id() -> str:
        return secrets.token_hex(6)

    def path(self, run_id: str) -> Path:
        return store_child(self.root, f"{check_run_id(run_id)}.json")

    def save(self, state: dict[str, Any]) -> Path:
        if not isinstance(state, dict):
            raise ValueError("run state must be a JSON object")
        path = self.path(state.get("run_id"))
        if not self._swept:
            self._swept = True
            sweep_temp_files(self.root, older_than=OPEN_SWEEP_GRACE_S)
        atomic_write_json(path, state, state=True)
        return path

    def load(self, run_id: str) -> dict[str, Any]:
        state = _read_json_object(self.path(run_id), f"run {run_id}", MAX_RUN_FILE_BYTES)
        if state.get("run_id") != run_id:
            raise ValueError(f"run {run_id} is corrupt: its run_id is {state.get('run_id')!r}")
        return state

    def sweep(self, run_id: str) -> list[Path]:
        """Remove this run's orphan temp files; call it holding the run's lock."""
        return sweep_temp_files(self.root, target=self.path(run_id).name)

    @property
    def index(self) -> RunIndex:
        """The derived index of this store's runs (workflow/run_index.py), opened on first use."""
        if self._index is None:
            from hwf_lsp.workflow.run_index import SHORT_WAIT_S, RunIndex

            self._index = RunIndex(self.root, self.load_listed, **(
                {"wait_s": SHORT_WAIT_S, "memory_when_locked": True} if self.short_lived
                else {}))
        return self._index

    def load_listed(self, run_id: str) -> dict[str, Any]:
        """`load` for a run id a listing found: its name passed the run-id regex, which
        admits no separator, and the index refuses anything but a regular file (lstat),
        so the path needs no resolve()."""
        path = self.root / f"{check_run_id(run_id)}.json"
        state = _read_json_object(path, f"run {run_id}", MAX_RUN_FILE_BYTES)
        if state.get("run_id") != run_id:
            raise ValueError(f"run {run_id} is corrupt: its run_id is {state.get('run_id')!r}")
        return state

    def iter_recent(
        self, *, design: str | None = None, status: str | None = None,
        errors: list[StoreReadError] | None = None,
    ) -> Iterator[dict[str, Any]]:
        """Every run on disk, whoever wrote it, newest first (updated_at, else mtime, then
        run id), read one by one as the caller goes; the index says which to read.
        Files that turn out unreadable are added to `errors` when given."""
        index = self.index
        index.sync(verify=True)  # a file rewritten in place moves no directory stamp
        for row in index.rows(design=design, status=status):
            try:
                state = self.load_listed(row.run_id)
            except FileNotFoundError:
                continue  # deleted since the index looked
            except (ValueError, OSError) as exc:
                if errors is not None:
                    errors.append(StoreReadError(self.root / f"{row.run_id}.json", str(exc)))
                continue
            if (design is not None and state.get("name") != design) or (
                    status is not None and state.get("status") != status):
                continue  # changed since the index looked
            yield state

    def recent_with_errors(
        self, limit: int | None = None, *, where: Callable[[dict[str, Any]], bool] | None = None,
        design: str | None = None, status: str | None = None,
    ) -> tuple[list[dict[str, Any]], list[StoreReadError]]:
        """Runs newest first (at most `limit`, of one design or status, passing `where`),
        and the unreadable files; only the runs listed are read."""
        errors: list[StoreReadError] = []
        states: list[dict[str, Any]] = []
        if limit is not None and limit <= 0:
            return states, errors
        for state in self.iter_recent(design=design, status=status, errors=errors):
            if where is not None and not where(state):
                continue
            states.append(state)
            if limit is not None and len(states) >= limit:
                break
        listed = {error.path for error in errors}
        errors.extend(StoreReadError(path, message) for path, message in self.index.errors()
                      if path not in listed)
        return states, errors

    def recent(
        self, limit: int | None = None, *, where: Callable[[dict[str, Any]], bool] | None = None,
        design: str | None = None, status: str | None = None,
    ) -> list[dict[str, Any]]:
        """Like recent_with_errors, logging a warning per unreadable file instead."""
        states, errors = self.recent_with_errors(limit, where=where, design=design,
                                                 status=status)
        for error in errors:
            log.warning("skipping unreadable run file %s: %s", error.path, error.message)
        return states
