"""The first workspace/symbol query of a large workspace is cut into slices, so the server
answers other messages while it reads every design; the client is asked to watch the
designs and design test files only (issue 47)."""

from __future__ import annotations

import asyncio
import json

import pytest

from hwf_lsp.server.features import workspace_symbols as ws
from hwf_lsp.server.features.workspace_symbols import WorkspaceDesigns
from hwf_lsp.server.settings import DEFAULT_DESIGN_GLOBS

GLOBS = tuple(DEFAULT_DESIGN_GLOBS)


def write_designs(root, count: int) -> None:
    for i in range(count):
        nodes = [{"id": "start", "type": "trigger"},
                 {"id": f"step{i}", "type": "agent", "prompt": "p", "after": ["start"]}]
        (root / f"d{i}.hwf.json").write_text(json.dumps({"name": f"d{i}", "nodes": nodes}))
    (root / "package.json").write_text("{}")


def found_names(found) -> list[str]:
    return sorted(entry.symbols[index][0] for _, entry, index in found)


def test_a_sliced_query_finds_what_a_whole_one_does_and_lets_others_run(tmp_path,
                                                                        monkeypatch) -> None:
    write_designs(tmp_path, 300)
    folder = (tmp_path.as_uri(),)
    whole = found_names(WorkspaceDesigns().query(folder, GLOBS, "utf-16", "step1", 1000))
    monkeypatch.setattr(ws, "SLICE_S", 0.0)  # hand the loop back after every step
    ticks = 0

    async def other_messages() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    async def main() -> list[str]:
        other = asyncio.ensure_future(other_messages())
        try:
            return found_names(await WorkspaceDesigns().query_sliced(
                folder, GLOBS, "utf-16", "step1", 1000))
        finally:
            other.cancel()

    assert asyncio.run(main()) == whole
    assert "step1" in whole and "step2" not in whole and "start" not in whole
    assert ticks >= 300  # at least once per design read


def test_a_design_changed_while_the_table_is_built_is_skipped_not_a_crash(tmp_path) -> None:
    write_designs(tmp_path, 5)
    designs = WorkspaceDesigns()
    folder = (tmp_path.as_uri(),)
    steps = designs.query_steps(folder, GLOBS, "utf-16", "", 1000)
    for _ in range(3):  # d0, d1, d2 read
        next(steps)
    designs.entries.pop(str(tmp_path / "d0.hwf.json"))  # a file event mid-query
    with pytest.raises(StopIteration) as done:
        while True:
            next(steps)
    assert "step0" not in found_names(done.value.value)
    assert len(done.value.value) == 8


@pytest.mark.parametrize(("globs", "expected"), [
    (GLOBS, [*GLOBS, "**/*.hwf-test.json"]),
    (("flows/*.json", "**/*.hwf-test.json"), ["flows/*.json", "**/*.hwf-test.json"]),
])
def test_only_designs_and_test_files_are_watched(globs, expected) -> None:
    assert ws.watch_globs(globs) == expected
    assert "**/*.json" not in ws.watch_globs(globs)
