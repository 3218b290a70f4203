"""Stores: name checks before any path, atomic writes, corrupt files, sweeps, recent()."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from hwf_lsp.rules.names import check_design_name, check_run_id
from hwf_lsp.workflow.atomic import TEMP_PREFIX, atomic_write_json, sweep_temp_files
from hwf_lsp.workflow.paths import hermes_home, safe_child
from hwf_lsp.workflow.stores import DesignStore, RunStore

VALID_DESIGN = {
    "name": "hello",
    "nodes": [
        {"id": "start", "type": "trigger"},
        {"id": "ask", "type": "agent", "prompt": "Say hi", "after": ["start"]},
    ],
}


@pytest.fixture()
def designs(tmp_path: Path) -> DesignStore:
    return DesignStore.at_home(tmp_path)


@pytest.fixture()
def runs(tmp_path: Path) -> RunStore:
    return RunStore.at_home(tmp_path)


# --- names ----------------------------------------------------------------

BAD_DESIGN_NAMES = [
    "../x", "a/b", ".x", "a" * 65, "a\x00b", "/etc/passwd", "", "A", "x\n", "x y",
    "con", "NUL", "aux", "prn", "com1", "LPT9", "con.backup", ".", "..", "-x", "_x",
    "a\\b", "é",
]
GOOD_DESIGN_NAMES = ["a", "hello-world", "v1.2_final", "a" * 64, "0", "console", "com0"]
BAD_RUN_IDS = ["../x", "a/b", ".x", "abc12", "a" * 33, "ABCDEF", "abcdef\n", "ghijkl",
               "/abcdef", "abc\x00def", 123456, None]
GOOD_RUN_IDS = ["abcdef", "0123456789ab", "f" * 32]


@pytest.mark.parametrize("name", BAD_DESIGN_NAMES)
def test_bad_design_names_rejected_before_the_filesystem(designs: DesignStore, name: str) -> None:
    with pytest.raises(ValueError, match="design name"):
        check_design_name(name)
    for action in (designs.path, designs.load, lambda n: designs.save(n, VALID_DESIGN)):
        with pytest.raises(ValueError):
            action(name)
    assert not designs.root.exists()  # nothing was created or written


@pytest.mark.parametrize("name", GOOD_DESIGN_NAMES)
def test_good_design_names_accepted(designs: DesignStore, name: str) -> None:
    assert designs.path(name) == designs.root / f"{name}.json"


@pytest.mark.parametrize("run_id", BAD_RUN_IDS)
def test_bad_run_ids_rejected(runs: RunStore, run_id: object) -> None:
    with pytest.raises(ValueError, match="run id"):
        check_run_id(run_id)
    with pytest.raises(ValueError):
        runs.load(run_id)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        runs.save({"run_id": run_id})


@pytest.mark.parametrize("run_id", GOOD_RUN_IDS)
def test_good_run_ids_accepted(runs: RunStore, run_id: str) -> None:
    assert runs.path(run_id).name == f"{run_id}.json"


def test_safe_child_refuses_escapes(tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    os.symlink(tmp_path, tmp_path / "root" / "link.json")
    for name in ("..", "a/b", "", "x\x00", "link.json"):
        with pytest.raises(ValueError):
            safe_child(tmp_path / "root", name)


def test_hermes_home_from_env_or_default() -> None:
    assert hermes_home({"HERMES_HOME": "/srv/h"}) == Path("/srv/h")
    assert hermes_home({}) == Path.home() / ".hermes"


# --- designs --------------------------------------------------------------


def test_design_round_trip_and_list(designs: DesignStore) -> None:
    designs.save("hello", VALID_DESIGN)
    designs.save("other", {k: v for k, v in VALID_DESIGN.items() if k != "name"})
    assert designs.load("hello") == VALID_DESIGN
    assert designs.load("other")["name"] == "other"
    (designs.root / "Bad Name.json").write_text("{}")
    assert designs.list() == ["hello", "other"]
    text = designs.path("hello").read_text(encoding="utf-8")
    assert text.startswith('{\n  "name": "hello",')  # indent=2, key order kept


def test_design_save_revalidates(designs: DesignStore) -> None:
    broken = {"name": "broken", "nodes": [{"id": "a", "type": "agent"}]}
    with pytest.raises(ValueError, match="defect") as err:
        designs.save("broken", broken)
    assert "prompt" in str(err.value)
    assert not designs.path("broken").exists()
    with pytest.raises(ValueError, match="must agree"):
        designs.save("elsewhere", VALID_DESIGN)


HAND_LAID_OUT = json.dumps(VALID_DESIGN, indent=4)[:-1] + "\n\n}"


@pytest.mark.parametrize(("name", "design", "text", "as_is"), [
    ("hello", VALID_DESIGN, HAND_LAID_OUT, True),
    ("hello", VALID_DESIGN, json.dumps({**VALID_DESIGN, "nodes": []}), False),  # not this design
    ("hello", VALID_DESIGN, "not json", False),
    ("other", {k: v for k, v in VALID_DESIGN.items() if k != "name"},
     json.dumps({k: v for k, v in VALID_DESIGN.items() if k != "name"}), False),  # no name
])
def test_a_design_saved_with_its_text_is_written_as_that_text_when_it_holds_it(
        designs: DesignStore, name: str, design: dict, text: str, as_is: bool) -> None:
    designs.save(name, design, text)
    written = designs.path(name).read_text(encoding="utf-8")
    assert (written == text) is as_is
    assert designs.load(name)["name"] == name


CORRUPT_FILES = [
    (b'{"name": "x", "nodes": [', "corrupt"),
    (b"[1, 2]", "JSON object"),
    (b"\xff\xfe{}", "UTF-8"),
    (b"", "corrupt"),
    (b"[" * 100_000, "corrupt"),
]


@pytest.mark.parametrize(("content", "why"), CORRUPT_FILES)
def test_corrupt_files_are_value_errors_naming_them(
    designs: DesignStore, runs: RunStore, content: bytes, why: str
) -> None:
    designs.root.mkdir(parents=True)
    designs.path("bad").write_bytes(content)
    with pytest.raises(ValueError, match=why) as err:
        designs.load("bad")
    assert "design 'bad'" in str(err.value)
    runs.root.mkdir(parents=True)
    runs.path("abcdef").write_bytes(content)
    with pytest.raises(ValueError, match=why) as err:
        runs.load("abcdef")
    assert "run abcdef" in str(err.value)


def test_missing_files_are_file_not_found(designs: DesignStore, runs: RunStore) -> None:
    with pytest.raises(FileNotFoundError, match="design 'nope'"):
        designs.load("nope")
    with pytest.raises(FileNotFoundError, match="run abcdef"):
        runs.load("abcdef")


def test_run_whose_id_disagrees_with_its_file_is_corrupt(runs: RunStore) -> None:
    runs.root.mkdir(parents=True)
    runs.path("abcdef").write_text('{"run_id": "fedcba"}')
    with pytest.raises(ValueError, match="run abcdef is corrupt"):
        runs.load("abcdef")


# --- atomic writes and sweeps ----------------------------------------------


def test_sweep_removes_orphans_only(tmp_path: Path) -> None:
    target = tmp_path / "abcdef.json"
    atomic_write_json(target, {"run_id": "abcdef"})
    orphan_old = tmp_path / f"{TEMP_PREFIX}abcdef.json.xyz.part"
    orphan_young = tmp_path / f"{TEMP_PREFIX}other.json.abc.part"
    for orphan in (orphan_old, orphan_young):
        orphan.write_text('{"half')
    old = time.time() - 3600
    os.utime(orphan_old, (old, old))
    assert sweep_temp_files(tmp_path, older_than=60) == [orphan_old]
    assert orphan_young.exists()
    assert sweep_temp_files(tmp_path, target="abcdef.json") == []
    assert sweep_temp_files(tmp_path, target="other.json") == [orphan_young]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["abcdef.json"]


def test_a_run_store_sweeps_old_orphans_before_its_first_write(tmp_path: Path) -> None:
    """Not at open: listing runs must not cost a readdir of the whole history."""
    root = tmp_path / "workflow-runs"
    root.mkdir()
    orphan = root / f"{TEMP_PREFIX}abcdef.json.1.part"
    orphan.write_text("{")
    old = time.time() - 3600
    os.utime(orphan, (old, old))
    store = RunStore(root)
    store.recent()
    assert orphan.exists()
    store.save({"run_id": "bbbbbb"})
    assert not orphan.exists()


def test_failed_serialisation_leaves_no_file(tmp_path: Path) -> None:
    with pytest.raises(TypeError):
        atomic_write_json(tmp_path / "x.json", {"bad": object()})
    assert list(tmp_path.iterdir()) == []


def test_reader_never_sees_partial_json(runs: RunStore) -> None:
    """>= 10k reads during >= 3k fsync'd writes of alternating sizes: every read parses."""
    small = {"run_id": "abcdef", "outputs": {}}
    big = {"run_id": "abcdef", "outputs": {"x": "é" * 3000}}
    runs.save(small)
    path = runs.path("abcdef")
    counts = {"writes": 0, "reads": 0, "bad": 0}
    stop = threading.Event()

    def writer() -> None:
        while counts["writes"] < 3000 or (counts["reads"] < 10_000 and not stop.is_set()):
            runs.save(big if counts["writes"] % 2 else small)
            counts["writes"] += 1

    thread = threading.Thread(target=writer)
    started = time.monotonic()
    thread.start()
    while thread.is_alive():
        try:
            json.loads(path.read_bytes())
        except ValueError:
            counts["bad"] += 1
        counts["reads"] += 1
        if time.monotonic() - started > 18:
            stop.set()
    thread.join()
    assert counts["bad"] == 0
    assert counts["writes"] >= 3000 and counts["reads"] >= 10_000, counts
    assert [p.name for p in runs.root.iterdir()] == ["abcdef.json"]


# --- recent ---------------------------------------------------------------

WRITER_SCRIPT = """
import sys
from hwf_lsp.workflow.stores import RunStore
store = RunStore(sys.argv[1])
for i, run_id in enumerate(sys.argv[2:]):
    store.save({"run_id": run_id, "name": "hello", "updated_at": f"2026-11-30T05:00:0{i}Z"})
"""


def test_recent_sees_other_processes_newest_first_and_reports_corrupt(runs: RunStore) -> None:
    runs.save({"run_id": "aaaaaa", "name": "hello", "updated_at": "2026-11-29T00:00:00Z"})
    subprocess.run(
        [sys.executable, "-c", WRITER_SCRIPT, str(runs.root), "bbbbbb", "cccccc"],
        check=True, cwd=Path(__file__).resolve().parents[2],
    )
    runs.path("dddddd").write_text("{not json")
    (runs.root / "notes.json").write_text("{}")
    untimed = runs.path("eeeeee")
    untimed.write_text('{"run_id": "eeeeee"}')
    old = time.time() - 10 * 365 * 86400
    os.utime(untimed, (old, old))  # no updated_at: falls back to its mtime

    states, errors = runs.recent_with_errors()
    assert [s["run_id"] for s in states] == ["cccccc", "bbbbbb", "aaaaaa", "eeeeee"]
    assert sorted(e.path.name for e in errors) == ["dddddd.json", "notes.json"]
    assert any("run dddddd is corrupt" in e.message for e in errors)
    assert [s["run_id"] for s in runs.recent(limit=2)] == ["cccccc", "bbbbbb"]
    assert [s["run_id"] for s in runs.recent(where=lambda s: "updated_at" not in s)] == [
        "eeeeee"
    ]


def test_new_run_ids_are_valid_and_distinct(runs: RunStore) -> None:
    ids = {runs.new_run_id() for _ in range(100)}
    assert len(ids) == 100
    assert all(check_run_id(i) for i in ids)


# --- bad entries: a looping link is a clear error, not an internal one ------------


def test_a_symlink_loop_is_a_value_error_naming_the_file(designs: DesignStore,
                                                         runs: RunStore) -> None:
    for root, name in ((designs.root, "loop.json"), (runs.root, "abcdef.json")):
        root.mkdir(parents=True)
        os.symlink(name, root / name)
    with pytest.raises(ValueError, match="loop.json is unreadable: a symlink loop"):
        designs.load("loop")
    with pytest.raises(ValueError, match="abcdef.json is unreadable: a symlink loop"):
        runs.load("abcdef")
    assert designs.list() == ["loop"]  # listed by name; reading it says why it can't be
