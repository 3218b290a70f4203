"""Run from here: reuse upstream results of a base run, execute only X and downstream."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from support.designs import agent

from hwf_lsp.workflow.rerun import prepare_rerun
from hwf_lsp.workflow.runner import EXTRA_KEYS, RERUN_KEYS, SPEC_KEYS, Runner
from hwf_lsp.workflow.seams import CallableAgentSeam
from hwf_lsp.workflow.stores import RunStore

DESIGN = {
    "name": "pipeline",
    "nodes": [
        {"id": "start", "type": "trigger"},
        agent("fetch"),
        agent("clean", "fetch"),
        agent("side", "fetch"),
        agent("write", "clean"),
        {"id": "ship", "type": "output", "after": ["write", "side"]},
        {"id": "n", "type": "note", "text": "hi"},
    ],
}


class Counting(CallableAgentSeam):
    def __init__(self, tag: str) -> None:
        self.calls: list[str] = []
        self.tag = tag
        super().__init__(self._answer)

    def _answer(self, request: Any) -> str:
        node = request.correlation_id.rsplit(":", 1)[1]
        self.calls.append(node)
        return f"{node}@{self.tag}"


@pytest.fixture()
def runs(tmp_path: Path) -> RunStore:
    return RunStore.at_home(tmp_path)


def base_run(runs: RunStore, design: dict = DESIGN) -> dict:
    state = Runner(runs, agent=Counting("base")).start(design)
    assert state["status"] == "completed"
    return state


def test_reuses_upstream_and_calls_the_agent_only_for_x_and_downstream(runs: RunStore) -> None:
    base = base_run(runs)
    state, notices = prepare_rerun(runs, DESIGN, "clean")
    assert state["base_run"] == base["run_id"] and state["from_node"] == "clean"
    assert state["outputs"] == {"fetch": "fetch@base", "side": "side@base"}
    assert state["stale"] == [] and state["status"] == "running" and state["cursor"] == 0
    assert notices == [f"running from 'clean', reusing 2 step results of run {base['run_id']}"]
    assert set(state) == set(SPEC_KEYS) | set(EXTRA_KEYS) | set(RERUN_KEYS)
    assert runs.load(state["run_id"]) == state

    seam = Counting("new")
    done = Runner(runs, agent=seam).advance(state["run_id"])
    assert seam.calls == ["clean", "write"]
    assert done["status"] == "completed"
    assert done["outputs"]["ship"] == {"write": "write@new", "side": "side@base"}
    assert done["outputs"]["fetch"] == "fetch@base"


def test_base_is_the_newest_run_with_every_ancestor_result(runs: RunStore) -> None:
    older = base_run(runs)
    newest_incomplete = Runner(runs).start(DESIGN)  # parked at fetch: no ancestor results
    other_design = base_run(runs, {**DESIGN, "name": "other"})
    state, _ = prepare_rerun(runs, DESIGN, "write")
    assert state["base_run"] == older["run_id"]
    assert newest_incomplete["run_id"] != state["base_run"] != other_design["run_id"]
    newer = base_run(runs)
    state, _ = prepare_rerun(runs, DESIGN, "write")
    assert state["base_run"] == newer["run_id"]


def test_named_base_run(runs: RunStore) -> None:
    first = base_run(runs)
    base_run(runs)
    state, _ = prepare_rerun(runs, DESIGN, "write", base_run_id=first["run_id"])
    assert state["base_run"] == first["run_id"]
    parked = Runner(runs).start(DESIGN)
    with pytest.raises(ValueError, match="no result for fetch, clean"):
        prepare_rerun(runs, DESIGN, "write", base_run_id=parked["run_id"])
    with pytest.raises(FileNotFoundError):
        prepare_rerun(runs, DESIGN, "write", base_run_id="abcdef")


def test_without_a_base_run_it_starts_from_the_beginning_and_says_so(runs: RunStore) -> None:
    state, notices = prepare_rerun(runs, DESIGN, "write")
    assert state["base_run"] is None and state["outputs"] == {}
    assert "running from the beginning" in notices[0]
    seam = Counting("new")
    assert Runner(runs, agent=seam).advance(state["run_id"])["status"] == "completed"
    assert seam.calls == ["fetch", "clean", "side", "write"]


def test_changed_ancestor_is_flagged_stale(runs: RunStore) -> None:
    base = base_run(runs)
    edited = copy.deepcopy(DESIGN)
    edited["nodes"][1]["prompt"] = "fetch more"  # fetch changed: an ancestor of write
    edited["nodes"][2]["title"] = "Clean"  # a title does not change what clean computes
    edited["nodes"][3]["prompt"] = "other side"  # side is not an ancestor of write
    state, notices = prepare_rerun(runs, edited, "write")
    assert state["stale"] == ["fetch"]
    assert notices[1] == (f"output of fetch reused from run {base['run_id']} may be stale: "
                          "fetch changed since")
    assert state["design"] == edited  # the snapshot is the edited (unsaved) design


def test_skips_from_the_base_run_carry_over(runs: RunStore) -> None:
    design = {"name": "gated", "nodes": [
        {"id": "start", "type": "trigger"},
        agent("a"),
        {"id": "c", "type": "condition", "expression": "out.a.go == true", "after": ["a"]},
        agent("b", "c"),
        agent("x", "a"),
    ]}
    base_run(runs, design)
    state, _ = prepare_rerun(runs, design, "x")
    assert state["skipped"] == ["c", "b"]
    seam = Counting("new")
    done = Runner(runs, agent=seam).advance(state["run_id"])
    assert seam.calls == ["x"] and done["skipped"] == ["c", "b"]


@pytest.mark.parametrize("node", ["start", "n", "nope"])
def test_from_node_must_be_a_step(runs: RunStore, node: str) -> None:
    with pytest.raises(ValueError, match="not a step"):
        prepare_rerun(runs, DESIGN, node)
