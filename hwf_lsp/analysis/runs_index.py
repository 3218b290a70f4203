"""The newest run of each design, read from $HERMES_HOME/workflow-runs.

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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hwf_lsp.workflow.run_facts import failed_step, step_fact, step_facts
from hwf_lsp.workflow.run_index import NO_CHANGES, Changes, RunRow
from hwf_lsp.workflow.step_words import (
    STEP_DONE,
    STEP_FAILED,
    STEP_NOT_RUN,
    STEP_SKIPPED,
    STEP_WAITING,
)
from hwf_lsp.workflow.stores import RUNS_DIRNAME, RunStore

if TYPE_CHECKING:
    from hwf_lsp.workflow.run_index import RunIndex

DONE, FAILED, WAITING, SKIPPED = STEP_DONE, STEP_FAILED, STEP_WAITING, STEP_SKIPPED
"""The engine's words (`workflow.step_words`), re-exported for older imports."""


@dataclass(frozen=True, slots=True)
class RunInfo:
    """The parts of a run state the editor shows; `state` keeps the rest."""

    run_id: str
    name: str | None
    status: str | None
    outputs: dict[str, Any]
    skipped: tuple[str, ...]
    pending: dict[str, Any] | None
    error: Any
    updated_at: str | None
    path: str
    state: dict[str, Any] = field(repr=False, default_factory=dict)
    failed: str | None = None
    """The step a failed run failed at (`workflow.run_facts.failed_step`), else None."""
    key: tuple[int, int, int] | None = None
    """The run file's (inode, mtime_ns, size) when it was read."""
    facts: dict[str, dict[str, Any]] = field(repr=False, default_factory=dict)
    """The engine's run facts (`workflow.run_facts.step_facts`) by step id: what the
    editor shows of each step, read once per run file version."""

    @classmethod
    def from_state(cls, state: dict[str, Any], path: str,
                   key: tuple[int, int, int] | None = None) -> RunInfo:
        outputs = state.get("outputs")
        skipped = state.get("skipped")
        pending = state.get("pending")
        updated = state.get("updated_at")
        name = state.get("name")
        status = state.get("status")
        return cls(
            run_id=str(state.get("run_id", "")),
            name=name if isinstance(name, str) else None,
            status=status if isinstance(status, str) else None,
            outputs=outputs if isinstance(outputs, dict) else {},
            skipped=tuple(s for s in skipped if isinstance(s, str))
            if isinstance(skipped, list) else (),
            pending=pending if isinstance(pending, dict) else None,
            error=state.get("error"),
            updated_at=updated if isinstance(updated, str) else None,
            path=path,
            state=state,
            failed=failed_step(state),
            key=key,
            facts={fact["id"]: fact for fact in step_facts(state)},
        )

    def with_design(self, design: Any) -> RunInfo:
        """This run as `design` (the open or stored design of the same name) plans it, when
        the run has no design snapshot of its own: its step facts, and its failed step
        when it has no log to find it in either."""
        if self.facts:
            return self
        facts = {fact["id"]: fact for fact in step_facts(self.state, design)}
        failed = self.failed if self.failed is not None else failed_step(self.state, design)
        return replace(self, failed=failed, facts=facts) if facts else self

    def failed_node(self) -> str | None:
        """The node a failed run failed on (one rule for everyone: `run_facts.failed_step`)."""
        return self.failed

    def fact(self, node_id: str) -> dict[str, Any] | None:
        """The engine's facts of one step (`run_facts.step_facts`), None for a node that is
        no step of the run's plan.  A run no design plans is read from its state alone,
        and a step it says nothing about is None (it cannot tell a step from a note)."""
        if self.facts:
            return self.facts.get(node_id)
        fact = step_fact(self.state, node_id, self.failed)
        return None if fact["status"] == STEP_NOT_RUN else fact

    def node_status(self, node_id: str) -> str | None:
        """The step's state word (`workflow.step_words`), None for a node that is no step."""
        fact = self.fact(node_id)
        return None if fact is None else fact["status"]


FED_MAX_READS = 64
"""A fed index's question reads at most about this many files (a cold index: the
watcher's thread reads the rest, then the editor asks again)."""
MAX_DESIGNS_KEPT = 256


class RunsIndex:
    """Newest run per design name under one Hermes home; thread-safe."""

    def __init__(self, home: Path | str, *, auto_refresh: bool = True,
                 store: RunStore | None = None) -> None:
        self.home = Path(home)
        self.root = self.home / RUNS_DIRNAME
        self.auto_refresh = auto_refresh
        self._store = store
        self._lock = threading.Lock()
        self._primed = False
        self._infos: dict[str, tuple[int, RunInfo | None]] = {}
        """Design name -> (index generation, its newest run) as last asked."""

    @property
    def store(self) -> RunStore:
        """The run store (its index opened on first use: the I/O is the caller's)."""
        if self._store is None:
            self._store = RunStore(self.root)
        return self._store

    @property
    def index(self) -> RunIndex:
        return self.store.index

    @property
    def primed(self) -> bool:
        return self._primed or self.auto_refresh

    def newest(self, design_name: str | None, *, refresh: bool | None = None) -> RunInfo | None:
        """The most recent run (updated_at, else mtime) whose `name` is `design_name`.

        `refresh` (default: `auto_refresh`) syncs the index with the disk first; a fed
        index never waits for a history it has not primed."""
        if not design_name:
            return None
        if refresh is None:
            refresh = self.auto_refresh
        if refresh:
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

    def refreshing(self) -> _Refreshing:
        """This index as `analyse` sees it on a worker thread (a fed index: as primed)."""
        return _Refreshing(self)

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


@dataclass(frozen=True, slots=True)
class _Refreshing:
    index: RunsIndex

    def newest(self, design_name: str | None) -> RunInfo | None:
        return self.index.newest(design_name)

    @property
    def fresh_index(self) -> RunsIndex:
        """The index this view reads through."""
        return self.index


__all__ = ["DONE", "FAILED", "NO_CHANGES", "SKIPPED", "WAITING", "Changes", "RunInfo",
           "RunsIndex"]
