"""The newest run of each design, read from $HERMES_HOME/workflow-runs, for the editor.

Completion, hover, hints and the `path-absent` check all want "what did this
node output last time".  Which run that is comes from the runs dir's derived index
(`workflow.run_index`, a query, not a read of every file); only that one run is read
in full, and kept (one `RunInfo` per design asked about, never the whole history).
Two ways to keep it fresh:

- standalone (`auto_refresh=True`, the default): every question first checks the
  runs directory's stamp and syncs the index when it moved;
- fed (`auto_refresh=False`, the language server): someone else calls `refresh()`
  off the event loop (the runs watcher's thread, a finished run command)
  and questions only query the index.  Before the first `refresh()` there are no runs
  rather than a wait, so the first diagnostics never wait for the history, and a
  question reads at most `FED_MAX_READS` files of a half-built index.

A corrupt or unreadable run file is skipped, never raised: the editor must keep working.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from hwf_lsp.analysis.newest_run import RunInfo
from hwf_lsp.workflow.run_index import Changes, RunRow
from hwf_lsp.workflow.stores import RUNS_DIRNAME, RunStore

if TYPE_CHECKING:
    from hwf_lsp.workflow.run_index import RunIndex


FED_MAX_READS = 64
"""A fed index's question reads at most about this many files (a cold index: the
watcher's thread reads the rest, then the editor asks again)."""
MAX_DESIGNS_KEPT = 256


class NewestRunsByDesign:
    """Newest run per design name under one Hermes home; thread-safe."""

    def __init__(self, home: Path | str, *, auto_refresh: bool = True) -> None:
        self.home = Path(home)
        self.root = self.home / RUNS_DIRNAME
        self.auto_refresh = auto_refresh
        self.store = RunStore(self.root)
        """The run store (its index opened on first use: the I/O is the caller's)."""
        self._lock = threading.Lock()
        self._primed = False
        self._infos: dict[str, tuple[int, RunInfo | None]] = {}
        """Design name -> (index generation, its newest run) as last asked."""

    @property
    def index(self) -> RunIndex:
        return self.store.index

    @property
    def primed(self) -> bool:
        return self._primed or self.auto_refresh

    def newest(self, design_name: str | None) -> RunInfo | None:
        """The most recent run (updated_at, else mtime) whose `name` is `design_name`.

        With `auto_refresh` the index is synced with the disk first; a fed index never
        waits for a history it has not primed."""
        if not design_name:
            return None
        if self.auto_refresh:
            self.refresh()
        elif not self._primed:
            return None
        index = self.index
        generation = index.generation
        with self._lock:
            known = self._infos.get(design_name)
        if known is not None and known[0] == generation:
            return known[1]
        row = index.newest(design_name, max_reads=None if self.auto_refresh else FED_MAX_READS)
        info = known[1] if known is not None else None
        if row is None:
            info = None
        elif info is None or info.key != row.key:
            state = index.load(row)
            info = None if state is None else RunInfo.from_state(
                state, str(self.root / f"{row.run_id}.json"), key=row.key)
        with self._lock:
            if len(self._infos) >= MAX_DESIGNS_KEPT:
                self._infos.clear()
            self._infos[design_name] = (generation, info)
        return info

    def refresh(self, files: Iterable[str] | None = None) -> Changes:
        """Sync the index with the disk (I/O: call it off the event loop when fed): the
        named run files only, or (None) the whole directory when its stamp moved.  A fed
        index answers questions from its first refresh on (the watcher's prime)."""
        index = self.index
        if files is not None:
            changes = index.update(files)
        else:  # primed: every change is news, to be named (a cold start reads a page)
            changes = index.sync(None) if self._primed and not self.auto_refresh else index.sync()
        self._primed = True
        return changes

    def build(self, stop: threading.Event | None = None) -> int:
        """Read the files a cold start left unread (I/O, in the background)."""
        return self.index.build(stop=stop, pause_s=0.001)

    def recent(self, limit: int | None, design: str | None = None) -> Iterator[RunRow]:
        """The newest runs (of one design), as the index has them: rows, not states."""
        if not self.primed:
            return iter(())
        return self.index.rows(design=design, limit=limit)

