"""Workspace symbols: one walk per folder, a cache kept by file events, only regular
files read, names matched in milliseconds at thousands of designs."""

from __future__ import annotations

import json
import os
import statistics
import threading
import time

import pytest
from lsprotocol import types

from hwf_lsp.analysis.symbols import matches_query
from hwf_lsp.server.features import workspace_symbols as ws
from hwf_lsp.server.features.workspace_symbols import WorkspaceDesigns
from hwf_lsp.server.settings import DEFAULT_DESIGN_GLOBS

GLOBS = tuple(DEFAULT_DESIGN_GLOBS)


def design(name: str, *ids: str) -> str:
    nodes = [{"id": "start", "type": "trigger"}] + [
        {"id": i, "type": "agent", "prompt": "p", "after": ["start"]} for i in ids]
    return json.dumps({"name": name, "nodes": nodes}, indent=1)


def names(designs: WorkspaceDesigns, root, query: str) -> list[str]:
    folder = root.as_uri()
    return sorted(entry.symbols[index][0] for _, entry, index in
                  designs.query((folder, folder), GLOBS, "utf-16", query, 1000))


def test_a_fifo_or_a_link_to_a_device_named_like_a_design_is_never_opened(tmp_path) -> None:
    (tmp_path / "real.hwf.json").write_text(design("real", "draft"))
    os.mkfifo(tmp_path / "x.hwf.json")  # opening it for reading would block forever
    os.symlink("/dev/zero", tmp_path / "zero.hwf.json")  # reading it would never end
    found: list[list[str]] = []
    worker = threading.Thread(target=lambda: found.append(
        names(WorkspaceDesigns(), tmp_path, "")), daemon=True)
    worker.start()
    worker.join(10)
    assert not worker.is_alive(), "workspace/symbol hung on a FIFO or a device"
    assert found == [["draft", "start"]]


def test_each_folder_is_walked_once(tmp_path, monkeypatch) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.hwf.json").write_text(design("a", "one"))
    walks = []
    real = ws.walk_steps
    monkeypatch.setattr(ws, "walk_steps", lambda root, m, *a: walks.append(root) or real(
        root, m, *a))
    designs = WorkspaceDesigns()
    designs.watched = True
    folders = (tmp_path.as_uri(), tmp_path.as_uri() + "/", (tmp_path / "sub").as_uri())
    for _ in range(3):
        assert len(designs.files(folders, GLOBS)) == 1
    assert walks == [str(tmp_path)]  # rootUri, workspaceFolders and a folder inside: once


def test_watched_files_keep_the_cache_current(tmp_path) -> None:
    path = tmp_path / "a.hwf.json"
    path.write_text(design("a", "one"))
    designs = WorkspaceDesigns()
    designs.watched = True
    assert names(designs, tmp_path, "") == ["one", "start"]
    path.write_text(design("a", "two"))
    assert names(designs, tmp_path, "") == ["one", "start"]  # watched: no stat per query
    designs.changed(str(path), types.FileChangeType.Changed)
    assert names(designs, tmp_path, "") == ["start", "two"]
    new = tmp_path / "b.hwf.json"
    new.write_text(design("b", "three"))
    designs.changed(str(new), types.FileChangeType.Created)
    assert names(designs, tmp_path, "thr") == ["three"]
    new.unlink()
    designs.changed(str(new), types.FileChangeType.Deleted)
    assert names(designs, tmp_path, "thr") == []


def test_unwatched_folders_follow_the_files(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(ws, "WALK_TTL_S", 0.0)
    path = tmp_path / "a.hwf.json"
    path.write_text(design("a", "one"))
    designs = WorkspaceDesigns()
    assert names(designs, tmp_path, "") == ["one", "start"]
    path.write_text(design("a", "twenty"))
    (tmp_path / "b.hwf.json").write_text(design("b", "other"))
    assert names(designs, tmp_path, "") == ["other", "start", "start", "twenty"]


@pytest.mark.parametrize("query", ["", "dr", "DRAFT", "d.t", "zz", "st*", "a\nb"])
def test_search_agrees_with_matches_query(tmp_path, query) -> None:
    ids = ["draft", "dr_eft", "d.t", "review", "st*ar", "Draft2"]
    (tmp_path / "a.hwf.json").write_text(design("a", *ids))
    expected = sorted(n for n in ["start", *ids] if matches_query(n, query))
    assert names(WorkspaceDesigns(), tmp_path, query) == expected


def test_names_match_in_milliseconds_at_4000_designs(tmp_path) -> None:
    for i in range(4000):
        folder = tmp_path / f"team{i % 40}"
        folder.mkdir(exist_ok=True)
        (folder / f"d{i}.hwf.json").write_text(design(f"d{i}", "fetch", "draft", "review"))
    designs = WorkspaceDesigns()
    designs.watched = True
    names(designs, tmp_path, "")  # the first query walks and reads
    timings = {}
    for query in ("nomatch", "revi", ""):
        samples = []
        for _ in range(5):
            started = time.perf_counter()
            names(designs, tmp_path, query)
            samples.append(time.perf_counter() - started)
        timings[query] = statistics.median(samples)
    print("\nworkspace symbols at 4,000 designs (ms):",
          {q or "(all)": round(t * 1000, 1) for q, t in timings.items()})
    assert timings["nomatch"] < 0.020 and timings["revi"] < 0.040
