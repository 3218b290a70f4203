"""A cold boot writes only the newest rows; the rest of the history stays below the bound.

With `WRITE_NOW` made small (100,000 runs in the bench, a few thousand here), the files a
reconcile leaves without a row sort at or below the index's bound, and still:

- the first page after a cold boot is right, and the next listing is a query;
- listings that reach the bound (every run, a design, a status) equal a full read;
- later reconciles complete the index in a few steps, files written behind its back
  (new ones, old ones copied in with their mtimes, removals) are listed right;
- kill -9 during the background fill (complete, then read) loses nothing, shows nothing
  wrong;
- the newest run of each design (the editor's lookup, standalone and fed) and the
  editor's run list equal a full read.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from test_run_index import (
    DESIGNS,
    agrees,
    corrupted,
    deleted,
    full_read,
    garbled_rows,
    killed_mid_build,
    listed,
    populate,
    rewritten_in_place,
    settle,
    write_run,
    written_behind_its_back,
)

from hwf_lsp.server.runs.newest_runs import NewestRunsByDesign
from hwf_lsp.workflow import run_index
from hwf_lsp.workflow.run_index import READ_NOW, RunIndex, index_path
from hwf_lsp.workflow.stores import RunStore

WRITE_NOW = 100
RUNS = 2000


@pytest.fixture(autouse=True)
def small_writes(monkeypatch):
    monkeypatch.setattr(run_index, "WRITE_NOW", WRITE_NOW)


def held(root: Path) -> tuple[int, float | None]:
    """(rows in the index, its bound), read off the SQLite file as another process would."""
    import sqlite3

    db = sqlite3.connect(index_path(root))
    try:
        rows = db.execute("SELECT count(*) FROM runs").fetchone()[0]
        bound = db.execute("SELECT value FROM meta WHERE key = 'bound'").fetchone()
    finally:
        db.close()
    return rows, bound[0] if bound else None


def cold_history(tmp_path: Path, count: int = RUNS, seed: int = 1) -> Path:
    root = tmp_path / "workflow-runs"
    populate(root, count, seed=seed)
    settle(root)
    return root


def test_the_first_page_after_a_cold_boot_is_right_and_writes_only_the_newest_rows(tmp_path):
    root = cold_history(tmp_path)
    store = RunStore(root)
    assert [s["run_id"] for s in store.recent(20)] == full_read(root)[:20]
    rows, bound = held(root)
    assert rows == READ_NOW + WRITE_NOW and bound is not None
    assert store.index.reads < READ_NOW + 50  # the newest by mtime, not 2,000


def test_the_next_listing_after_a_cold_boot_is_a_query(tmp_path, monkeypatch):
    root = cold_history(tmp_path)
    listed(root, 20)
    store = RunStore(root)  # a new process: the claim holds, the page is above the bound
    looked = []
    original = RunIndex._observe
    monkeypatch.setattr(RunIndex, "_observe",
                        lambda self, files: looked.append(1) or original(self, files))
    assert [s["run_id"] for s in store.recent(20)] == full_read(root)[:20]
    assert looked == [] and store.index.reads == 0  # 20 loads of the states, no file stat'ed


def test_listings_that_reach_the_bound_equal_a_full_read(tmp_path):
    root = cold_history(tmp_path)
    listed(root, 20)
    rare = "zeta"  # a design whose only runs are old: far below the bound
    for i in range(3):
        write_run(root, f"ab{i:08x}", rare, 1.6e9 + i)
    settle(root)
    listed(root, 20)
    assert held(root)[1] is not None
    assert listed(root, 2, design=rare) == full_read(root, design=rare)[:2]
    assert held(root)[1] is None  # reaching the bound gave every file a row
    agrees(root)


@pytest.mark.parametrize("damage", [deleted, corrupted, garbled_rows, written_behind_its_back,
                                    rewritten_in_place])
def test_a_bounded_index_still_lists_what_the_files_say(tmp_path, damage):
    root = cold_history(tmp_path, 600)
    assert listed(root, 20) == full_read(root)[:20]
    assert held(root)[1] is not None
    damage(root)
    if damage is garbled_rows:
        os.utime(root)
    assert listed(root, 20) == full_read(root)[:20]
    settle(root)
    agrees(root)


def test_reconciles_complete_the_index_in_a_few_steps(tmp_path):
    """Each reconcile writes as many unread rows as the index holds: a CLI that only
    ever lists a page still ends with every file in the index."""
    root = cold_history(tmp_path, 4000)
    steps = 0
    while steps == 0 or held(root)[1] is not None:
        write_run(root, f"cd{steps:08x}", "alpha", 1.99e9 + steps)  # a new run moves the stamp
        settle(root)
        assert listed(root, 20) == full_read(root)[:20]
        steps += 1
        assert steps < 8
    assert held(root)[0] == len(full_read(root)) and steps <= 5


def test_old_files_copied_in_below_the_bound_are_listed(tmp_path):
    """`cp -p` of old runs: new files, old mtimes; history, not news, but listed."""
    root = cold_history(tmp_path)
    listed(root, 20)
    for i in range(5):
        write_run(root, f"ef{i:08x}", "beta", 1.6e9 + i)
    settle(root)
    assert listed(root, 20) == full_read(root)[:20]
    assert held(root)[1] is not None
    assert listed(root, design="beta") == full_read(root, design="beta")


def test_a_fed_reconcile_names_news_not_the_history_below_the_bound(tmp_path):
    """The watcher's reconcile (every change named) after a cold prime: the one new run,
    not the 1,600 files still without a row."""
    root = cold_history(tmp_path)
    index = RunIndex(root, RunStore(root).load_listed)
    index.sync()
    write_run(root, "fe00000001", "alpha", 1.99e9)
    changes = index.reconcile(None)
    assert changes.changed == ("fe00000001",) and not changes.reset
    assert index.reads < READ_NOW + 10


@pytest.mark.parametrize("seed", range(6))
def test_kill_9_during_the_background_fill_loses_nothing_and_shows_nothing_wrong(tmp_path, seed):
    """A cold boot's rows, then the fill (every file a row, then every row read) killed at
    a random moment; files change behind its back; every listing equals a full read."""
    root = cold_history(tmp_path, 1500, seed=seed)
    killed_mid_build(root, seed, into_fill=True, write_now=WRITE_NOW, old_runs=True)


def newest_by_reading(root: Path, design: str) -> str | None:
    found = full_read(root, design=design)
    return found[0] if found else None


def test_the_editors_newest_runs_and_run_list_equal_a_full_read(tmp_path):
    root = cold_history(tmp_path)
    write_run(root, "ab00000001", "zeta", 1.6e9)  # a design with one old run
    settle(root)
    home = root.parent
    designs = (*DESIGNS, "zeta")
    standalone = NewestRunsByDesign(home)
    assert {d: getattr(standalone.newest(d), "run_id", None) for d in designs} == {
        d: newest_by_reading(root, d) for d in designs}
    run_index_file = index_path(root)
    for suffix in ("", "-wal", "-shm"):
        Path(f"{run_index_file}{suffix}").unlink(missing_ok=True)
    fed = NewestRunsByDesign(home, auto_refresh=False)  # the server: primed by the watcher, then built
    fed.refresh()
    assert [row.run_id for row in fed.recent(200)] == full_read(root)[:200]  # hwf.listRuns
    fed.build()
    assert {d: getattr(fed.newest(d), "run_id", None) for d in designs} == {
        d: newest_by_reading(root, d) for d in designs}
    assert not fed.index.unfinished()


def test_a_store_listing_in_json_matches_hwf_runs(tmp_path, capsys):
    """`hwf runs --json` after a cold boot (in this process, so the small WRITE_NOW holds)."""
    from hwf_lsp.cli import main

    root = cold_history(tmp_path)
    assert main(["runs", "--hermes-home", str(root.parent), "--json"]) == 0
    assert [s["run_id"] for s in json.loads(capsys.readouterr().out)] == full_read(root)[:20]
    assert main(["runs", "--hermes-home", str(root.parent), "--json", "--all"]) == 0
    assert [s["run_id"] for s in json.loads(capsys.readouterr().out)] == full_read(root)
