"""A derived index of one runs directory, so listing runs does not read every run file.

The run files stay the truth (`$HERMES_HOME/workflow-runs/<run_id>.json`, the spec);
this is a cache of what they say, in SQLite (WAL) beside the directory
(`$HERMES_HOME/.hwf-index/workflow-runs.sqlite3`), that may be deleted, corrupted or
left stale by another process at any time:

- Each row is one run file's (inode, ctime_ns, size) and what was read from it (design,
  status, the sort stamp: `updated_at`, else the mtime), or only the key and an upper
  bound of its stamp while it is *unread* (after a cold start).  A row whose key no
  longer matches its file is simply read again.
- The index claims to be complete only as of a directory stamp (the directory's
  mtime_ns and inode): every writer renames a file into the directory (atomic.py), so
  the stamp moves on any write.  While the stamp is unchanged, a listing is a query;
  when it moved, `reconcile` lists the directory once and compares each entry's inode
  (free from readdir, no stat) with its row; only new or replaced files, and rows of
  runs still in progress, are stat'ed, and only changed files are read.
- A claim is written only by a reconcile during which nobody else committed (a
  generation counter), with a stamp old enough to trust; any other commit keeps or
  drops the claim, never makes one.  Commits are SQLite transactions, so a kill -9
  leaves the last committed rows, each still checked against its file.

Unread rows (a cold start: 100,000 files are stat'ed, not read) sort by their mtime plus
`UNREAD_SLACK_S`: a runner stamps `updated_at` just before writing, so a file's
`updated_at` is never much later than its mtime.  A listing reads only the unread rows
that could belong on its page; `build` reads the rest in the background.

Writing 100,000 rows costs about as much as the rest of a cold start, so a reconcile
writes at most `WRITE_NOW` unread rows (or as many as it holds already), the newest;
the files it leaves without a row all sort at or below the index's *bound*, written
with the rows.  Whatever sorts above the bound is complete, so a first page is a query;
a listing that reaches the bound first gives every file a row (`complete`), as do later
reconciles (twice as many rows each) and `build`.  An interrupted write leaves the last
bound committed with its rows.

Threads: one connection for writes guarded by a lock, and (a file index in a long-lived
process: the language server) another for queries with a lock of its own, so a query on
the event loop never waits behind a commit (whose checkpoint fsyncs the file: seconds on
a busy disk); WAL readers do not wait for writers.  File reads happen outside both.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import stat as stat_mod
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from operator import attrgetter
from pathlib import Path
from typing import Any, NamedTuple

from hwf_lsp.rules.names import check_run_id, legal_run_file

log = logging.getLogger(__name__)

INDEX_DIRNAME = ".hwf-index"
SCHEMA_VERSION = 5
"""4: the bound (an index written by 3 would be trusted as complete by 3, so 3 drops it);
5: keys hold the ctime, not the mtime (`changed_ns`)."""
UNREAD_SLACK_S = 600.0
"""How much later than its file's mtime a run's `updated_at` may be and still sort right
while the file is unread (the writer's clock against the file system's)."""
TERMINAL = frozenset({"completed", "failed", "cancelled"})
"""A run in one of these states is not written again by a runner: its inode alone tells
whether its file was replaced.  Rows of other runs are stat'ed on every reconcile."""
READ_NOW = 256
"""A reconcile reads at most this many changed files at once; more stay unread."""
WRITE_NOW = 5_000
"""A reconcile writes at most this many unread rows (the newest), or as many as the index
holds already (so a history is complete after a few reconciles); the rest stay below
the bound until then, a listing that reaches them, or `build`."""
MTIME_SETTLE_NS = 50_000_000
"""A directory mtime younger than this may be followed by a rename in the same tick."""
BUSY_TIMEOUT_S = 5.0
SHORT_WAIT_S = 0.2
"""How long a short-lived process (`hwf runs`) waits for an index another process holds
locked before it lists without it (`RunIndex(wait_s=..., memory_when_locked=True)`)."""
CACHE_KB = 1024
"""SQLite's page cache per connection: the server's memory must not grow with the history."""
BIG_WRITE = 5000
VERIFY_SLICE = 5_000
"""Rows a listing re-stats (`verify_files`): a history this long is checked whole on every
`hwf runs` (measured: 5,000 lstat calls take 15-30 ms), a longer one over several."""
RESOLVE_WINDOW = 64
"""A listing of a half-read index reads unread rows this many at a time."""
BIG_WRITE_CACHE_KB = 32768

UNREAD, READ, UNREADABLE = 0, 1, 2

FileKey = tuple[int, int, int]
"""(inode, ctime_ns, size) of a run file: the ctime moves with any write, even one in
place (same inode) that keeps the size and puts the mtime back (`cp -p`)."""
Stamp = tuple[int, int]
"""(mtime_ns, inode) of a runs directory."""


def dir_stamp(root: Path) -> Stamp | None:
    """(mtime_ns, inode) of a runs directory, None without it: every atomic write of a
    run renames a file into it, so the stamp moves when any run changes."""
    try:
        stat = os.stat(root)
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_ino


def stamp_settled(stamp: Stamp | None) -> bool:
    """Whether `stamp` can be trusted to move on the next write: a write in the same
    clock tick as the one it saw would not move the mtime."""
    return stamp is not None and time.time_ns() - stamp[0] > MTIME_SETTLE_NS


def is_run_file_name(name: str) -> bool:
    """`*.json`, not a dot file (temp files, the `.locks` dir)."""
    return name.endswith(".json") and not name.startswith(".")


def index_path(root: Path) -> Path:
    """Where the index of runs dir `root` lives: beside it, never inside it (writing the
    index must not move the runs directory's stamp)."""
    return root.parent / INDEX_DIRNAME / f"{root.name}.sqlite3"


@dataclass(frozen=True, slots=True)
class RunRow:
    """What the index knows of one readable run file."""

    run_id: str
    name: str | None
    status: str | None
    stamp: float
    key: FileKey


@dataclass(frozen=True, slots=True)
class Changes:
    """What one sync saw change, as this process knows it."""

    changed: tuple[str, ...] = ()
    """Run ids whose file appeared or changed (read), newest first."""
    removed: tuple[str, ...] = ()
    reset: bool = False
    """Too much changed to tell (a cold start, another process's commits, a new root):
    whoever shows runs should list them again."""

    def __bool__(self) -> bool:
        return bool(self.changed or self.removed or self.reset)


NO_CHANGES = Changes()


class _Observed(NamedTuple):
    """A run file as lstat saw it, and (once read) what it says: a tuple in the columns'
    order, written as it is (a cold start makes 100,000 of them)."""

    file: str
    ino: int
    changed_ns: int
    size: int
    stamp: float
    state: int
    name: str | None = None
    status: str | None = None
    error: str | None = None

    @property
    def key(self) -> FileKey:
        return self.ino, self.changed_ns, self.size


_NEWEST_FIRST = attrgetter("stamp")
_BY_FILE = attrgetter("file")


@dataclass(slots=True)
class _RowDiff:
    """The index's rows against the directory (`RunIndex._rows_against`)."""

    gen: int = 0
    bound: float | None = None
    others: bool = True
    """Others committed since we last looked (or we never looked, or no index)."""
    held: int = 0
    """How many rows the index holds."""
    check: dict[str, FileKey] = field(default_factory=dict)
    """Rows to look at again: file -> the key the row holds."""
    gone: list[str] = field(default_factory=list)
    gone_ids: list[str] = field(default_factory=list)
    """The run ids of the read rows whose file is gone."""


class _Meta(NamedTuple):
    gen: int
    claim: Stamp | None
    claim_gen: int | None
    bound: float | None
    """Every run file without a row sorts at or below this (None: every file has a row)."""


_NEWEST_INDEX = "CREATE INDEX IF NOT EXISTS runs_newest ON runs(stamp DESC, file DESC)"
_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS runs(
    file TEXT PRIMARY KEY, ino INTEGER NOT NULL, changed_ns INTEGER NOT NULL,
    size INTEGER NOT NULL, stamp REAL NOT NULL, state INTEGER NOT NULL,
    design TEXT, status TEXT, error TEXT) WITHOUT ROWID;
{_NEWEST_INDEX};
CREATE INDEX IF NOT EXISTS runs_design ON runs(design, stamp DESC, file DESC) WHERE state = 1;
"""
_UPSERT = ("INSERT OR REPLACE INTO runs(file, ino, changed_ns, size, stamp, state, design, "
           "status, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
_ROW_COLUMNS = "file, design, status, stamp, ino, changed_ns, size"


class IndexUnavailable(Exception):
    """The on-disk index cannot be used (corrupt, unwritable): start over."""


class IndexLocked(IndexUnavailable):
    """Another process holds the index locked past `wait_s`; this index is now in memory
    (`memory_when_locked`), and the caller does what it was doing again."""


def _transient(exc: sqlite3.Error) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


SQLITE_CORRUPT, SQLITE_NOTADB = 11, 26


def _broken(exc: sqlite3.Error) -> bool:
    """Whether SQLite says the file is no database or a damaged one (not: locked, no
    permission, disk full, which deleting the file would not mend)."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (SQLITE_CORRUPT, SQLITE_NOTADB)
    text = str(exc).lower()
    return "not a database" in text or "malformed" in text


def _inode(path: str) -> int | None:
    try:
        return os.stat(path).st_ino
    except OSError:
        return None


def _discard(path: str, inode: int | None) -> None:
    """Remove a broken index file (and its WAL and shared memory), unless another process
    already replaced it (its inode is no longer `inode`): SQLite then creates a new one
    under its own locks, so two processes mending it at once end with one good file."""
    if inode is not None and _inode(path) != inode:
        return
    for suffix in ("-wal", "-shm", ""):
        try:
            os.unlink(f"{path}{suffix}")
        except OSError:
            pass


class RunIndex:
    """The index of one runs directory (thread-safe).

    `loader(run_id)` reads one run state (RunStore.load_listed: regex-checked id, one
    BOM, strict JSON object); `path` is where the SQLite file goes (`index_path`, beside
    the runs; ":memory:" once the file stayed locked, `memory_when_locked`).
    """

    def __init__(self, root: Path | str, loader: Any, *, wait_s: float = BUSY_TIMEOUT_S,
                 memory_when_locked: bool = False) -> None:
        self.root = Path(root)
        self.wait_s = wait_s
        """How long a statement waits for another process's lock (SQLite's busy timeout)."""
        self.memory_when_locked = memory_when_locked
        """A short-lived process: when the file stays locked past `wait_s`, go on in memory
        (reading the run files) rather than wait or show nothing."""
        self._dir = str(self.root)
        self._load = loader
        self.path: Path | str = index_path(self.root)
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._read_lock = threading.Lock()
        self._reader: sqlite3.Connection | None = None
        self._reader_epoch = -1
        self._epoch = 0
        """Moves when the writer's connection is closed or replaced: the reader follows."""
        self._file_ino: int | None = None
        """The inode of the index file this process opened (a reset removes only that)."""
        self._seen_gen: int | None = None
        """The index generation as of this process's last look (None: never looked)."""
        self.generation = 0
        """Moves whenever this process saw runs change: caches keyed by it stay right."""
        self.reads = 0
        """Run files read so far (tests and benchmarks see the index work)."""

    # --- the connection ------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        if self._db is not None:
            return self._db
        target = str(self.path)
        try:
            if target != ":memory:":
                Path(target).parent.mkdir(parents=True, exist_ok=True)
            seen = _inode(target)
            try:
                db = self._open(target, self.wait_s)
            except sqlite3.DatabaseError as exc:
                if not _broken(exc):
                    raise
                # not a database, or truncated: rebuild the file once, here, rather than
                # have every later process warn and rebuild its own copy in memory
                log.warning("run index %s is not a usable database (%s): rebuilding it",
                            target, exc)
                _discard(target, seen)
                db = self._open(target, self.wait_s)
            self._file_ino = _inode(target) if target != ":memory:" else None
        except (OSError, sqlite3.Error) as exc:
            log.warning("run index %s unusable (%s): keeping it in memory", target, exc)
            self.path = ":memory:"
            self._epoch += 1
            db = self._open(":memory:", self.wait_s)
        self._db = db
        return db

    @staticmethod
    def _open(target: str, wait_s: float = BUSY_TIMEOUT_S) -> sqlite3.Connection:
        db = sqlite3.connect(target, timeout=wait_s, isolation_level=None,
                             check_same_thread=False)
        try:
            db.execute(f"PRAGMA cache_size=-{CACHE_KB}")
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if target != ":memory:" and version == SCHEMA_VERSION and \
                    db.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
                # current already: opening writes nothing, so another process holding
                # the write lock does not keep this one from reading
                db.execute("PRAGMA synchronous=NORMAL")
                return db
            if target != ":memory:":
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
            if version not in (0, SCHEMA_VERSION):
                db.executescript("DROP TABLE IF EXISTS runs; DROP TABLE IF EXISTS meta;")
            db.executescript(_SCHEMA)
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            db.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('gen', 0)")
        except BaseException:
            db.close()
            raise
        return db

    def _reset(self, exc: BaseException) -> None:
        """The index file is broken: remove it and start over (it is only a cache)."""
        log.warning("run index %s is unusable (%s): rebuilding it from the run files",
                    self.path, exc)
        self._drop_db()
        if str(self.path) != ":memory:":
            _discard(str(self.path), self._file_ino)  # unless another process mended it
        self._seen_gen = None

    def _query_connection(self) -> sqlite3.Connection | None:
        """The connection for queries apart from the writer's (call holding `_read_lock`),
        None when queries go through the writer's: an index in memory (one database per
        connection), a short-lived process, or no writer's connection yet (it makes the
        file and its tables)."""
        if self.memory_when_locked or self._db is None or str(self.path) == ":memory:":
            return None
        if self._reader is not None and self._reader_epoch == self._epoch:
            return self._reader
        self._drop_reader()
        epoch = self._epoch
        try:
            db = sqlite3.connect(str(self.path), timeout=self.wait_s, isolation_level=None,
                                 check_same_thread=False)
            db.execute(f"PRAGMA cache_size=-{CACHE_KB}")
            db.execute("PRAGMA query_only=1")
        except sqlite3.Error:
            return None
        self._reader, self._reader_epoch = db, epoch
        return db

    def _drop_reader(self) -> None:
        reader, self._reader = self._reader, None
        if reader is not None:
            try:
                reader.close()
            except sqlite3.Error:
                pass

    @contextmanager
    def _session(self, write: bool = False) -> Iterator[sqlite3.Connection]:
        """One transaction (BEGIN IMMEDIATE for writes); a broken index is reset once."""
        if not write:
            with self._read_lock:
                reader = self._query_connection()
                if reader is not None:
                    try:
                        reader.execute("BEGIN")
                    except sqlite3.Error:
                        self._drop_reader()
                        reader = None
                if reader is not None:
                    try:
                        yield reader
                        reader.execute("COMMIT")
                    except sqlite3.Error as exc:
                        self._rollback(reader)
                        self._drop_reader()
                        raise IndexUnavailable(str(exc)) from exc
                    except BaseException:
                        self._rollback(reader)
                        raise
                    return
        with self._lock:
            for attempt in (1, 2):
                db = self._connect()
                try:
                    db.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                except sqlite3.Error as exc:
                    if _transient(exc):
                        self._locked(exc)
                    if attempt == 2:
                        raise IndexUnavailable(str(exc)) from exc
                    self._reset(exc)
                    continue
                try:
                    yield db
                    db.execute("COMMIT")
                except sqlite3.Error as exc:
                    self._rollback(db)
                    if _transient(exc):
                        self._locked(exc)
                    self._reset(exc)
                    raise IndexUnavailable(str(exc)) from exc
                except BaseException:
                    self._rollback(db)
                    raise
                return

    def _locked(self, exc: sqlite3.Error) -> None:
        """Another process holds the file locked: wait no more (a short-lived process
        goes on in memory and says so: IndexLocked), else IndexUnavailable."""
        if self.memory_when_locked and str(self.path) != ":memory:":
            log.warning("run index %s is locked by another process (%s): listing without it",
                        self.path, exc)
            self._drop_db()
            self.path = ":memory:"
            self._seen_gen = None
            raise IndexLocked(str(exc)) from exc
        raise IndexUnavailable(str(exc)) from exc

    @staticmethod
    def _rollback(db: sqlite3.Connection) -> None:
        try:
            db.execute("ROLLBACK")
        except sqlite3.Error:
            pass

    def close(self) -> None:
        with self._read_lock:
            self._drop_reader()
        with self._lock:
            self._drop_db()

    def _drop_db(self) -> None:
        """Close the connection (a broken file's close may fail too) and start a new epoch,
        so every holder of the old connection's answers asks again."""
        if self._db is not None:
            try:
                self._db.close()
            except sqlite3.Error:
                pass
            self._db = None
        self._epoch += 1

    # --- meta -------------------------------------------------------------------------

    @staticmethod
    def _meta(db: sqlite3.Connection) -> _Meta:
        values = dict(db.execute("SELECT key, value FROM meta"))
        stamp = values.get("stamp")
        claim = None
        if isinstance(stamp, str) and ":" in stamp:
            mtime, _, ino = stamp.partition(":")
            claim = (int(mtime), int(ino))
        gen = values.get("gen")
        claim_gen = values.get("claim_gen")
        bound = values.get("bound")
        return _Meta(gen if isinstance(gen, int) else 0, claim,
                     claim_gen if isinstance(claim_gen, int) else None,
                     float(bound) if isinstance(bound, (int, float)) else None)

    def _others_committed(self, gen: int) -> bool:
        """Whether someone other than this process committed since it last looked."""
        return self._seen_gen is not None and gen != self._seen_gen

    def _commit(self, upserts: Iterable[_Observed], deletes: Iterable[str], *,
                claim: Stamp | None = None, base_gen: int | None = None,
                keep_claim: bool = False, bound: float | None = None,
                set_bound: bool = False) -> bool:
        """Write rows; the claim: made (`claim`, if nobody committed since `base_gen`),
        kept (`keep_claim`: these rows only fill in what the claim already covers), or
        dropped; the bound, with `set_bound` (a reconcile: the highest unwritten stamp it
        saw; if others committed meanwhile, theirs too).  False when the index could not
        be written (the rows stay as they were)."""
        upserts, deletes = list(upserts), list(deletes)
        try:
            with self._session(write=True) as db:
                meta = self._meta(db)
                gen = meta.gen
                others = self._others_committed(gen) or (
                    base_gen is not None and gen != base_gen)
                if upserts:
                    self._write_rows(db, upserts)
                if deletes:
                    db.executemany("DELETE FROM runs WHERE file = ?", ((f,) for f in deletes))
                new_gen = gen + 1
                if claim is not None and not others and stamp_settled(claim):
                    stamp_text: str | None = f"{claim[0]}:{claim[1]}"
                elif keep_claim and meta.claim is not None and meta.claim_gen == gen:
                    stamp_text = f"{meta.claim[0]}:{meta.claim[1]}"
                else:
                    stamp_text = None
                values = [("gen", new_gen), ("stamp", stamp_text), ("claim_gen", new_gen)]
                if set_bound:
                    values.append(("bound", _higher(bound, meta.bound) if others else bound))
                db.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", values)
                if not others:
                    self._seen_gen = new_gen
            if len(upserts) > BIG_WRITE and self._db is not None:
                # fold the big write into the database now: a reader opening the index
                # next would otherwise scan megabytes of WAL first
                with self._lock:
                    self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except IndexLocked:
            self.reconcile()  # in memory now: everything the files say, for this process
            return True
        except IndexUnavailable as exc:
            log.debug("run index not updated: %s", exc)
            return False
        except sqlite3.Error as exc:
            log.debug("run index checkpoint failed: %s", exc)
        return True

    @staticmethod
    def _write_rows(db: sqlite3.Connection, upserts: list[_Observed]) -> None:
        big = len(upserts) > BIG_WRITE
        if big:  # a cold start: room for the B-trees while they are written,
            # and no checkpoint copying them again at this commit
            db.execute(f"PRAGMA cache_size=-{BIG_WRITE_CACHE_KB}")
            db.execute("PRAGMA wal_autocheckpoint=0")
        upserts.sort(key=_BY_FILE)  # primary-key order: local B-tree writes
        # more new rows than old ones: sorting them into the stamp index once beats
        # inserting each
        resort = big and db.execute("SELECT count(*) FROM runs").fetchone()[0] < len(upserts)
        if resort:
            db.execute("DROP INDEX IF EXISTS runs_newest")
        db.executemany(_UPSERT, upserts)
        if resort:
            db.execute(_NEWEST_INDEX)
        if big:
            db.execute(f"PRAGMA cache_size=-{CACHE_KB}")
            db.execute("PRAGMA wal_autocheckpoint=1000")

    # --- looking at the files ----------------------------------------------------------

    def _listing(self) -> dict[str, int] | None:
        """Run file name -> inode, from one readdir (no stat); None without the dir."""
        try:
            with os.scandir(self.root) as entries:
                return {name: entry.inode() for entry in entries  # is_run_file_name, inline
                        if (name := entry.name).endswith(".json") and name[0] != "."}
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            log.debug("cannot list %s: %s", self.root, exc)
            return None

    def _observe(self, files: Iterable[str]) -> tuple[list[_Observed], list[str]]:
        """lstat each file: an unread row, or an unreadable one (not a regular file, not a
        run id); and the files that are gone.  One tight loop, names relative to the open
        directory: a cold start observes 100,000 files."""
        seen: list[_Observed] = []
        gone: list[str] = []
        slack = UNREAD_SLACK_S
        is_regular, new = stat_mod.S_ISREG, tuple.__new__  # _Observed(...) minus a frame
        with _lstat_in(self._dir) as lstat:
            for file in files:
                try:
                    st = lstat(file)
                except FileNotFoundError:
                    gone.append(file)
                    continue
                except OSError as exc:
                    seen.append(_Observed(file, 0, 0, 0, 0.0, UNREADABLE,
                                          error=f"is unreadable: {exc.strerror or exc}"))
                    continue
                if is_regular(st.st_mode) and legal_run_file(file):
                    seen.append(new(_Observed, (file, st.st_ino, st.st_ctime_ns, st.st_size,
                                                st.st_mtime + slack, UNREAD, None, None, None)))
                else:
                    seen.append(_Observed(file, st.st_ino, st.st_ctime_ns, st.st_size,
                                          st.st_mtime, UNREADABLE, error=_not_a_run(st, file)))
        return seen, gone

    def _read(self, observed: _Observed) -> _Observed | None:
        """Read an observed (unread) file: its read row; None when it is gone.  The key
        was taken before the read, so a later change always shows as a new key."""
        if observed.state != UNREAD:
            return observed
        run_id = observed.file[: -len(".json")]
        self.reads += 1
        try:
            state = self._load(run_id)
        except FileNotFoundError:
            return None
        except (ValueError, OSError) as exc:
            return observed._replace(stamp=observed.stamp - UNREAD_SLACK_S, state=UNREADABLE,
                                     error=str(exc))
        name, status = state.get("name"), state.get("status")
        return observed._replace(
            stamp=sort_stamp(state, observed.stamp - UNREAD_SLACK_S), state=READ,
            name=name if isinstance(name, str) else None,
            status=status if isinstance(status, str) else None)

    def _read_all(self, observed: list[_Observed], limit: int | None = READ_NOW
                  ) -> tuple[list[_Observed], list[str]]:
        """Read what can be read now (the first `limit`, newest first); (rows newest first
        by what was known before reading, gone)."""
        observed.sort(key=_NEWEST_FIRST, reverse=True)
        rows: list[_Observed] = []
        gone: list[str] = []
        for position, item in enumerate(observed):
            if limit is not None and position >= limit:
                rows.extend(observed[position:])
                break
            done = self._read(item)
            if done is None:
                gone.append(item.file)
            else:
                rows.append(done)
        return rows, gone

    # --- keeping it right ------------------------------------------------------------

    def sync(self, read_limit: int | None = READ_NOW, *, verify: bool = False) -> Changes:
        """Bring the index up to date with the directory: a query when its stamp is the
        one the index claims, else a `reconcile`.  `verify` (a listing that shows runs):
        also re-stat the files, `VERIFY_SLICE` at a time (`verify_files`)."""
        changes = self._sync(read_limit)
        if not verify:
            return changes
        found = self.verify_files()
        if not found:
            return changes
        return Changes(changed=found.changed + changes.changed,
                       removed=found.removed + changes.removed, reset=changes.reset)

    def _sync(self, read_limit: int | None) -> Changes:
        stamp = dir_stamp(self.root)
        if stamp is None and self._nothing_yet():
            return NO_CHANGES
        try:
            with self._session() as db:
                meta = self._meta(db)
                has_rows = db.execute("SELECT 1 FROM runs LIMIT 1").fetchone() is not None
                if (stamp is None and not has_rows) or (
                        stamp is not None and meta.claim == stamp and meta.claim_gen == meta.gen):
                    return self._looked(meta.gen, has_rows)
        except IndexUnavailable:
            pass
        return self.reconcile(read_limit)

    def verify_files(self) -> Changes:
        """Re-stat the rows' files and read again those whose key moved: a file rewritten
        in place (same inode: `cp backup.json` over it, an editor's save) moves no
        directory stamp, and a finished run's row is otherwise checked by inode alone.
        Up to `VERIFY_SLICE` rows are checked, in file order from where the last check
        stopped (kept in the index), so a longer history is covered over a few listings."""
        try:
            with self._session() as db:
                after = dict(db.execute(
                    "SELECT key, value FROM meta WHERE key = 'verified'")).get("verified")
                after = after if isinstance(after, str) else ""
                rows = db.execute("SELECT file, ino, changed_ns, size FROM runs WHERE file > ? "
                                  "AND ino != 0 ORDER BY file LIMIT ?",
                                  (after, VERIFY_SLICE)).fetchall()
                whole = len(rows) < VERIFY_SLICE
                if whole and after:  # wrap around to the start
                    rows += db.execute("SELECT file, ino, changed_ns, size FROM runs WHERE "
                                       "file <= ? AND ino != 0 ORDER BY file LIMIT ?",
                                       (after, VERIFY_SLICE - len(rows))).fetchall()
                    whole = len(rows) < VERIFY_SLICE
        except IndexLocked:
            return self.reconcile()  # in memory now, read from the files: nothing to verify
        except IndexUnavailable:
            return NO_CHANGES
        if not whole:
            self._remember_verified(rows[-1][0])
        elif after:
            self._remember_verified("")
        moved = []
        with _lstat_in(self._dir) as lstat:  # one tight loop: no row objects, no name checks
            for file, ino, changed, size in rows:
                try:
                    st = lstat(file)
                except FileNotFoundError:
                    moved.append(file)
                    continue
                except OSError:
                    continue
                if st.st_ctime_ns != changed or st.st_ino != ino or st.st_size != size:
                    moved.append(file)
        return self.update(moved) if moved else NO_CHANGES

    def _remember_verified(self, file: str) -> None:
        """Where the next `verify_files` starts; written without moving the generation
        (it changes no row: nobody need look again)."""
        try:
            with self._session(write=True) as db:
                db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('verified', ?)",
                           (file,))
        except IndexLocked:
            self.reconcile()  # in memory now: fill it from the files
        except IndexUnavailable:
            pass

    def _looked(self, gen: int, has_rows: bool) -> Changes:
        """Nothing to do here; whether others changed the index since we last looked
        (or, the first time, whether there is anything to show)."""
        first = self._seen_gen is None
        if gen == self._seen_gen:
            return NO_CHANGES
        self._seen_gen = gen
        self.generation += 1
        return Changes(reset=has_rows or not first)

    def reconcile(self, read_limit: int | None = READ_NOW, *, write_all: bool = False
                  ) -> Changes:
        """Compare the whole directory with the index (one readdir) and fix what differs.

        Changed files are read, up to `read_limit` of them (newest first; None: all, as a
        watcher wants each change named); the rest stay unread and the change is a reset.
        At most `WRITE_NOW` unread rows are written (`write_all`: all), the newest; the
        files left without a row sort at or below the bound.  Files already below the bound
        (left by an earlier reconcile) are history, not news: never read here, never named."""
        stamp = dir_stamp(self.root)
        # settled when read, not when committed: a rename after the listing in the stamp's
        # clock tick would leave the stamp as it is, and the claim would hide the file
        claim = stamp if stamp_settled(stamp) else None
        listing = self._listing() or {}
        diff = self._rows_against(listing)
        observed, history = self._to_read(diff, listing)
        many = read_limit is not None and len(observed) > read_limit
        rows, vanished = self._read_all(observed, read_limit)
        gone = diff.gone + vanished
        rows, bound = _written_now(rows + history,
                                   None if write_all else max(WRITE_NOW, diff.held))
        self._commit(rows, gone, claim=claim, base_gen=diff.gen, bound=bound, set_bound=True)
        changed = tuple(o.file[: -len(".json")] for o in rows if o.state == READ)
        if diff.others or many or changed or diff.gone_ids:
            self.generation += 1
        return Changes(changed=changed, removed=tuple(diff.gone_ids), reset=diff.others or many)

    def _rows_against(self, listing: dict[str, int]) -> _RowDiff:
        """The index's rows against a listing of the directory (file -> inode), each listed
        file that has a row taken out of `listing` (what stays is new): the rows whose file
        is gone, and those to look at again (another inode, or read before the run ended)."""
        diff = _RowDiff()
        try:
            with self._session() as db:
                meta = self._meta(db)
                diff.gen, diff.bound = meta.gen, meta.bound
                diff.others = self._others_committed(meta.gen) or self._seen_gen is None
                for file, ino, mtime, size, state, status in db.execute(
                        "SELECT file, ino, changed_ns, size, state, status FROM runs"):
                    diff.held += 1
                    inode = listing.pop(file, None)
                    if inode is None:
                        diff.gone.append(file)
                        if state == READ:
                            diff.gone_ids.append(file[: -len(".json")])
                    elif inode != ino or (state == READ and status not in TERMINAL):
                        diff.check[file] = (ino, mtime, size)
        except IndexUnavailable:
            diff.gen, diff.bound, diff.others, diff.check = 0, None, True, {}
        return diff

    def _to_read(self, diff: _RowDiff, listing: dict[str, int]
                 ) -> tuple[list[_Observed], list[_Observed]]:
        """(the files to read: rows whose file changed and new files, the history: new files
        at or below the bound, given a row unread).  Adds the files gone meanwhile to
        `diff.gone`."""
        seen, vanished = self._observe(diff.check)
        diff.gone.extend(vanished)
        observed = [o for o in seen if o.key != diff.check[o.file]]
        new, _ = self._observe(listing)
        bound = diff.bound
        if bound is None:
            return observed + new, []
        history = [o for o in new if o.state == UNREAD and o.stamp <= bound]
        if history:
            new = [o for o in new if not (o.state == UNREAD and o.stamp <= bound)]
        return observed + new, history

    def complete(self) -> bool:
        """Give every run file a row (those a reconcile left below the bound): what a
        listing that reaches the bound waits for.  False if the index could not be made
        complete (unwritable, or others kept committing)."""
        for _ in range(3):
            self.reconcile(write_all=True)
            if self._bound() is None:
                return True
        return False

    def update(self, files: Iterable[str]) -> Changes:
        """Re-check these run files (named by file events): each is reported as changed
        (or removed) whatever the index held, since another process may have updated
        the index before this one looked."""
        wanted = sorted({f for f in files if is_run_file_name(f)})
        if not wanted:
            return NO_CHANGES
        observed, gone = self._observe(wanted)
        rows, vanished = self._read_all(observed, limit=None)  # named: each one is news
        gone.extend(vanished)
        self._commit(rows, gone)
        self.generation += 1
        changed = tuple(o.file[: -len(".json")] for o in rows if o.state == READ)
        removed = tuple(f[: -len(".json")] for f in gone)
        return Changes(changed=changed, removed=removed)

    def build(self, batch: int = READ_NOW, pause_s: float = 0.0,
              stop: threading.Event | None = None) -> int:
        """Give every file a row (`complete`), then read every unread row, `batch` files
        per commit (the claim is kept: these rows only say what files the claim already
        covers contain).  The number read."""
        if self._bound() is not None:
            self.complete()  # if others kept it from finishing, their reconciles will
        total = 0
        after: tuple[float, str] = (float("inf"), "")
        while stop is None or not stop.is_set():
            try:  # newest first, resuming after the last batch (no rescan of read rows)
                with self._session() as db:
                    found = db.execute(
                        "SELECT file, ino, changed_ns, size, stamp FROM runs "
                        "WHERE state = 0 AND (stamp, file) < (?, ?) "
                        "ORDER BY stamp DESC, file DESC LIMIT ?", (*after, batch)).fetchall()
            except IndexUnavailable:
                return total
            if not found:
                break
            after = (found[-1][4], found[-1][0])
            files = [(f, (i, m, s)) for f, i, m, s, _ in found]
            done = self._fill(files)
            total += len(files)
            if not done:
                break
            if pause_s:
                time.sleep(pause_s)
        if total:
            self.generation += 1
        return total

    def _fill(self, files: list[tuple[str, FileKey]]) -> bool:
        """Read these unread rows' files; rows whose file changed since are re-keyed."""
        keys = dict(files)
        seen, gone = self._observe(keys)
        rows: list[_Observed] = []
        for item in seen:
            done = self._read(item)
            if done is None:
                gone.append(item.file)
            else:
                rows.append(done)
        keep = not gone and all(o.key == keys[o.file] for o in seen)
        return self._commit(rows, gone, keep_claim=keep)

    # --- asking -------------------------------------------------------------------------

    def _nothing_yet(self) -> bool:
        """No runs dir and no index: every question's answer is "none", made without
        creating anything in the user's Hermes home."""
        return self._db is None and not os.path.exists(str(self.path)) and \
            dir_stamp(self.root) is None

    def _query(self, sql: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        if self._nothing_yet():
            return []
        try:
            with self._session() as db:
                return db.execute(sql, args).fetchall()
        except IndexLocked:
            self.reconcile()  # in memory now: fill it from the files, then ask it
            return self._query(sql, args)
        except IndexUnavailable:
            return []

    def _resolve_top(self, count: int, design: str | None, status: str | None,
                     max_reads: int | None = None) -> bool:
        """Read the unread rows that could be among the newest `count` matching rows, until
        none could; False when `max_reads` ran out first."""
        where, args = _filter(design, status, unread=True)
        reads = 0
        while True:  # a window wider than `count`: fewer rounds when few rows match
            top = self._query(
                f"SELECT file, state, ino, changed_ns, size FROM runs WHERE {where} "
                "ORDER BY stamp DESC, file DESC LIMIT ?", (*args, max(count, RESOLVE_WINDOW)))
            if all(state != UNREAD for _, state, *_ in top[:count]):
                return True
            unread = [(f, (i, m, s)) for f, state, i, m, s in top if state == UNREAD]
            if max_reads is not None and reads >= max_reads:
                return False
            if not self._fill(unread):
                return False  # an index that cannot be written: take what it has
            reads += len(unread)

    def rows(self, *, design: str | None = None, status: str | None = None,
             limit: int | None = None) -> Iterator[RunRow]:
        """Readable runs, newest first (stamp, then run id), reading unread rows only as
        far as the listing goes (and giving every file a row once it reaches the bound)."""
        window = 32 if limit is None else max(limit, 1)
        given = 0
        where, args = _filter(design, status, unread=False)
        while True:
            if limit is not None:
                window = min(window, limit)
            self._resolve_top(window, design, status)
            found = self._query(
                f"SELECT {_ROW_COLUMNS} FROM runs WHERE {where} "
                "ORDER BY stamp DESC, file DESC LIMIT ? OFFSET ?",
                (*args, window - given, given))
            if self._reaches_bound(found, window - given) and self.complete():
                continue  # the same window again, every file in it now
            for values in found:
                yield _row(values)
            given += len(found)
            if given < window or (limit is not None and given >= limit):
                return
            window *= 4

    def newest(self, design: str, *, max_reads: int | None = None) -> RunRow | None:
        """The newest readable run of `design`; with `max_reads`, the newest known after
        reading at most about that many files (and without giving every file a row)."""
        where, args = _filter(design, None, unread=False)
        while True:
            self._resolve_top(1, design, None, max_reads)
            found = self._query(f"SELECT {_ROW_COLUMNS} FROM runs WHERE {where} "
                                "ORDER BY stamp DESC, file DESC LIMIT 1", args)
            if max_reads is None and self._reaches_bound(found, 1) and self.complete():
                continue
            return _row(found[0]) if found else None

    def _bound(self) -> float | None:
        found = self._query("SELECT value FROM meta WHERE key = 'bound'", ())
        value = found[0][0] if found else None
        return float(value) if isinstance(value, (int, float)) else None

    def _reaches_bound(self, found: list[tuple[Any, ...]], wanted: int) -> bool:
        """Whether a listing's rows (stamp 4th) go as far as the bound, where files without
        a row could come first: fewer than `wanted`, or the last at or below it."""
        bound = self._bound()
        return bound is not None and (len(found) < wanted or found[-1][3] <= bound)

    def row(self, run_id: str) -> RunRow | None:
        found = self._query(f"SELECT {_ROW_COLUMNS} FROM runs WHERE file = ? AND state = ?",
                            (f"{run_id}.json", READ))
        return _row(found[0]) if found else None

    def design_names(self) -> list[str]:
        """The design names of the runs read so far, each once (for a did-you-mean)."""
        return [name for (name,) in self._query(
            "SELECT DISTINCT design FROM runs WHERE state = ? AND design IS NOT NULL", (READ,))]

    def has_runs(self) -> bool:
        return bool(self._query("SELECT 1 FROM runs WHERE state != ? LIMIT 1",
                                (UNREADABLE,))) or self._bound() is not None

    def unread(self) -> int:
        """Rows not read yet (files below the bound have none: see `unfinished`)."""
        found = self._query("SELECT count(*) FROM runs WHERE state = 0", ())
        return found[0][0] if found else 0

    def unfinished(self) -> bool:
        """Whether `build` has work: unread rows, or files without a row yet."""
        return self._bound() is not None or self.unread() > 0

    def errors(self) -> list[tuple[Path, str]]:
        """Files that are not readable runs, with why."""
        return [(self.root / file, error) for file, error in self._query(
            "SELECT file, error FROM runs WHERE state = ? ORDER BY file", (UNREADABLE,))]

    def load(self, row: RunRow) -> dict[str, Any] | None:
        """The run state of `row`, read now; None when its file is gone or no longer a run."""
        self.reads += 1
        try:
            return self._load(row.run_id)
        except (FileNotFoundError, ValueError, OSError):
            return None


def _filter(design: str | None, status: str | None, *, unread: bool) -> tuple[str, tuple]:
    """SQL for the matching rows (and, with `unread`, the rows that might match)."""
    parts, args = [], []
    if design is not None:
        parts.append("design = ?")
        args.append(design)
    if status is not None:
        parts.append("status = ?")
        args.append(status)
    match = " AND ".join(["state = 1", *parts])
    if unread:
        return f"(({match}) OR state = 0)", tuple(args)
    return match, tuple(args)


def _written_now(rows: list[_Observed], limit: int | None
                 ) -> tuple[list[_Observed], float | None]:
    """What a reconcile writes now: every read or unreadable row and the newest `limit`
    unread ones; and the bound (the highest stamp left unwritten, None when none is)."""
    if limit is None:
        return rows, None
    unread = [o for o in rows if o.state == UNREAD]
    if len(unread) <= limit:
        return rows, None
    unread.sort(key=_NEWEST_FIRST, reverse=True)
    return [o for o in rows if o.state != UNREAD] + unread[:limit], unread[limit].stamp


def _higher(one: float | None, other: float | None) -> float | None:
    """The higher of two bounds (None: no file without a row)."""
    if one is None or other is None:
        return other if one is None else one
    return max(one, other)


@contextmanager
def _lstat_in(directory: str) -> Iterator[Any]:
    """lstat(name) for names in `directory`: relative to the open directory where the OS
    allows it (no path to join and walk per file), else by joined paths."""
    fd = None
    if os.stat in os.supports_dir_fd and os.stat in os.supports_follow_symlinks:
        try:
            fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        except OSError:
            fd = None
    try:
        if fd is None:
            yield lambda name: os.lstat(os.path.join(directory, name))
        else:
            yield partial(os.stat, dir_fd=fd, follow_symlinks=False)
    finally:
        if fd is not None:
            os.close(fd)


def _not_a_run(st: os.stat_result, file: str) -> str:
    """Why an observed file is no run file."""
    if not stat_mod.S_ISREG(st.st_mode):
        return "is not a regular file"
    try:
        check_run_id(file[: -len(".json")])
    except ValueError as exc:
        return str(exc)
    return "is not a run file"


def _row(values: tuple[Any, ...]) -> RunRow:
    file, name, status, stamp, ino, mtime, size = values
    return RunRow(file[: -len(".json")], name, status, stamp, (ino, mtime, size))


def sort_stamp(state: dict[str, Any], mtime: float) -> float:
    """A run's place in a listing: `updated_at` (ISO 8601), else its file's mtime."""
    stamp = state.get("updated_at")
    if isinstance(stamp, str):
        try:
            return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
        except ValueError:
            pass
    return mtime


__all__ = ["Changes", "RunIndex", "RunRow", "dir_stamp", "index_path", "sort_stamp",
           "stamp_settled"]
