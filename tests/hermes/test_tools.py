"""Every tool, called through Hermes' own `tools.registry.dispatch`, checked against the engine."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import BAD_DESIGNS, BAD_RUNS, add_bad_entries, tree
from designs import one_agent, review

from hwf_lsp.hermes.tools import TOOL_NAMES
from hwf_lsp.workflow import validate_designer_graph
from hwf_lsp.workflow.run_summary import run_summary
from hwf_lsp.workflow.stores import DesignStore, RunStore


def stores(home: Path) -> tuple[DesignStore, RunStore]:
    return DesignStore.at_home(home), RunStore.at_home(home)


def summary_on_disk(home: Path, run_id: str) -> dict[str, Any]:
    runs = RunStore.at_home(home)
    return run_summary(runs.load(run_id), runs.root)


def without_hints(answer: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in answer.items()
            if k not in ("instructions", "notices", "notifications")}


VALIDATE_CASES = [
    review(),
    {"name": "x", "nodes": []},
    {"nodes": [{"id": "a", "type": "agent"}, {"id": "a", "type": "bogus", "after": ["zz"]}]},
    {"name": "c", "nodes": [{"id": "t", "type": "trigger"},
                            {"id": "c", "type": "condition", "expression": "out.t.x ~ 1",
                             "after": ["t"]}]},
    [1, 2, 3],
    None,
    '"a JSON string, not a design"',
]


@pytest.mark.parametrize("design", VALIDATE_CASES)
def test_validate_is_the_rulebook(dispatch, design: Any) -> None:
    expected = validate_designer_graph(json.loads(design) if isinstance(design, str) else design)
    assert dispatch("workflow_design_validate", {"design": design}) == {
        "valid": not expected, "defects": expected}
    if isinstance(design, dict):  # models also send the design as a JSON string
        assert dispatch("workflow_design_validate", {"design": json.dumps(design)})["defects"] \
            == expected


def test_save_list_get_go_through_the_design_store(dispatch, hermes_home: Path) -> None:
    designs, _ = stores(hermes_home)
    saved = dispatch("workflow_design_save", {"name": "review", "design": review()})
    assert saved == {"saved": True, "path": str(designs.path("review"))}
    assert dispatch("workflow_design_save", {"name": "solo", "design": one_agent()})["saved"]
    assert dispatch("workflow_design_get", {"name": "review"}) == {"design": designs.load("review")}
    listed = dispatch("workflow_design_list", {})["designs"]
    assert [(d["name"], d["nodes"]) for d in listed] == [("review", 4), ("solo", 3)]
    assert all(d["updated_at"].endswith("Z") for d in listed)


def test_a_design_with_defects_is_not_saved(dispatch, hermes_home: Path) -> None:
    broken = review()
    broken["nodes"][1].pop("prompt")
    before = tree(hermes_home)
    answer = dispatch("workflow_design_save", {"name": "review", "design": broken})
    assert answer["argument"] == "design" and "not saved" in answer["error"]
    assert answer["defects"] == validate_designer_graph(broken)
    assert tree(hermes_home) == before


def test_run_parks_and_respond_answer_finish_it(dispatch, hermes_home: Path) -> None:
    dispatch("workflow_design_save", {"name": "review", "design": review()})
    started = dispatch("workflow_design_run", {"name": "review"})
    run_id = started["run_id"]
    assert started["status"] == "awaiting_agent"
    assert without_hints(started) == summary_on_disk(hermes_home, run_id)
    assert "workflow_design_respond" in started["instructions"]
    assert "Draft release notes for v2" in started["instructions"]

    responded = dispatch("workflow_design_respond", {"run_id": run_id, "output": "notes v2"})
    assert responded["status"] == "awaiting_approval"
    assert without_hints(responded) == summary_on_disk(hermes_home, run_id)
    assert "workflow_design_answer" in responded["instructions"]

    answered = dispatch("workflow_design_answer", {"run_id": run_id, "choice": "ship"})
    assert answered["status"] == "completed"
    (notification,) = answered["notifications"]
    assert json.loads(notification) == {"draft": "notes v2", "gate": {"choice": "ship"}}
    assert without_hints(answered) == summary_on_disk(hermes_home, run_id)
    state = dispatch("workflow_run_show", {"run_id": run_id})["run"]
    assert state == RunStore.at_home(hermes_home).load(run_id)
    assert state["outputs"]["draft"] == "notes v2" and state["answers"] == {"gate": "ship"}


def test_structured_respond_run_from_here_runs_and_cancel(dispatch, hermes_home: Path) -> None:
    dispatch("workflow_design_save", {"name": "solo", "design": one_agent()})
    first = dispatch("workflow_design_run", {"name": "solo"})["run_id"]
    done = dispatch("workflow_design_respond", {"run_id": first, "structured": {"n": 7}})
    assert done["status"] == "completed"
    assert RunStore.at_home(hermes_home).load(first)["outputs"]["think"] == {"n": 7}

    rerun = dispatch("workflow_design_run", {"name": "solo", "from_node": "done",
                                             "base_run": first})
    assert rerun["status"] == "completed" and rerun["base_run"] == first
    assert rerun["notices"][0].startswith("running from 'done', reusing 1 step result")

    parked = dispatch("workflow_design_run", {"name": "solo"})["run_id"]
    cancelled = dispatch("workflow_run_cancel", {"run_id": parked})
    assert cancelled["status"] == "cancelled"
    assert without_hints(cancelled) == summary_on_disk(hermes_home, parked)

    again = dispatch("workflow_run_cancel", {"run_id": first})
    assert again["status"] == "completed"
    assert again["notices"] == [f"run {first} had already finished (completed); nothing to cancel"]

    _, runs = stores(hermes_home)
    listed = dispatch("workflow_runs", {})["runs"]
    assert [r["run_id"] for r in listed] == [s["run_id"] for s in runs.recent()]
    assert listed == [run_summary(s, runs.root) for s in runs.recent()]
    assert [r["run_id"] for r in dispatch("workflow_runs", {"status": "cancelled"})["runs"]] \
        == [parked]
    assert len(dispatch("workflow_runs", {"design": "solo", "limit": 2})["runs"]) == 2
    assert dispatch("workflow_runs", {"design": "other"}) == {"runs": []}


def _saved_and_parked(dispatch) -> str:
    dispatch("workflow_design_save", {"name": "review", "design": review()})
    return dispatch("workflow_design_run", {"name": "review"})["run_id"]


BAD_ARGUMENTS = [
    ("workflow_design_validate", {}, "design"),
    ("workflow_design_validate", {"design": "{not json"}, "design"),
    ("workflow_design_validate", {"design": {}, "extra": 1}, "extra"),
    ("workflow_design_save", {"design": review()}, "name"),
    ("workflow_design_save", {"name": "../etc", "design": review()}, "name"),
    ("workflow_design_save", {"name": "other", "design": review()}, "name"),
    ("workflow_design_save", {"name": "x", "design": [1]}, "design"),
    ("workflow_design_list", {"name": "x"}, "name"),
    ("workflow_design_get", {"name": "missing"}, "name"),
    ("workflow_design_get", {"name": 5}, "name"),
    ("workflow_design_run", {"name": "missing"}, "name"),
    ("workflow_design_run", {"name": "review", "from_node": "nope"}, "from_node"),
    ("workflow_design_run", {"name": "review", "base_run": "abcdef123456"}, "base_run"),
    ("workflow_design_run", {"name": "review", "from_node": "gate",
                             "base_run": "abcdef123456"}, "base_run"),
    ("workflow_design_respond", {"run_id": "RUN"}, "output"),
    ("workflow_design_respond", {"run_id": "RUN", "output": "a", "structured": 1}, "output"),
    ("workflow_design_respond", {"run_id": "nothex", "output": "a"}, "run_id"),
    ("workflow_design_respond", {"run_id": "abcdef123456", "output": "a"}, "run_id"),
    ("workflow_design_answer", {"run_id": "RUN", "choice": "ship"}, "run_id"),
    ("workflow_design_answer", {"run_id": "RUN"}, "choice"),
    ("workflow_runs", {"limit": 0}, "limit"),
    ("workflow_runs", {"limit": "5"}, "limit"),
    ("workflow_runs", {"status": "sleeping"}, "status"),
    ("workflow_runs", {"design": "Bad Name"}, "design"),
    ("workflow_run_show", {}, "run_id"),
    ("workflow_run_show", {"run_id": "abcdef123456"}, "run_id"),
    ("workflow_run_cancel", {"run_id": ""}, "run_id"),
]


@pytest.mark.parametrize(("tool", "args", "argument"), BAD_ARGUMENTS)
def test_bad_arguments_name_the_argument_and_write_nothing(dispatch, hermes_home: Path,
                                                           tool: str, args: dict,
                                                           argument: str) -> None:
    run_id = _saved_and_parked(dispatch)
    args = {k: (run_id if v == "RUN" else v) for k, v in args.items()}
    before = tree(hermes_home)
    answer = dispatch(tool, args)
    assert set(answer) == {"error", "argument"}, answer
    assert answer["argument"] == argument and answer["error"]
    assert tree(hermes_home) == before


@pytest.mark.parametrize("tool", TOOL_NAMES)
def test_arguments_that_are_not_an_object_are_an_error(dispatch, tool: str) -> None:
    assert dispatch(tool, ["not", "an", "object"]) == {"error": "arguments must be a JSON object"}


def test_a_wrong_choice_names_the_options(dispatch) -> None:
    run_id = _saved_and_parked(dispatch)
    dispatch("workflow_design_respond", {"run_id": run_id, "output": "x"})
    answer = dispatch("workflow_design_answer", {"run_id": run_id, "choice": "maybe"})
    assert answer == {"argument": "choice", "error": "'maybe' is not an option of approval "
                      "'gate': choose one of ship, hold"}


def test_a_busy_run_is_an_error_not_a_lost_update(dispatch, hermes_home: Path) -> None:
    from hwf_lsp.workflow.locks import RunLock

    run_id = _saved_and_parked(dispatch)
    with RunLock(RunStore.at_home(hermes_home).root, run_id):
        answer = dispatch("workflow_design_respond", {"run_id": run_id, "output": "x"})
    assert answer == {"error": f"run {run_id} is busy: another runner is advancing it; "
                      "try again when it is done"}
    assert RunStore.at_home(hermes_home).load(run_id)["status"] == "awaiting_agent"


def test_bad_entries_are_skipped_with_their_reason(dispatch, hermes_home: Path) -> None:
    run_id = _saved_and_parked(dispatch)
    add_bad_entries(hermes_home)
    designs = {d["name"]: d for d in dispatch("workflow_design_list", {})["designs"]}
    assert designs["review"]["nodes"] == 4 and "error" not in designs["review"]
    for name, why in BAD_DESIGNS.items():
        assert designs[name]["nodes"] is None and why in designs[name]["error"], designs[name]
    listed = dispatch("workflow_runs", {})
    assert [r["run_id"] for r in listed["runs"]] == [run_id]
    reasons = {Path(u["path"]).stem: u["reason"] for u in listed["unreadable"]}
    assert set(reasons) == set(BAD_RUNS)
    assert all(why in reasons[name] for name, why in BAD_RUNS.items()), reasons


@pytest.mark.parametrize(("tool", "args"), [
    ("workflow_run_show", {"run_id": "abcdef000001"}),
    ("workflow_run_cancel", {"run_id": "abcdef000001"}),
    ("workflow_design_respond", {"run_id": "abcdef000001", "output": "x"}),
    ("workflow_design_answer", {"run_id": "abcdef000001", "choice": "x"}),
    ("workflow_design_get", {"name": "loop"}),
    ("workflow_design_run", {"name": "loop"}),
])
def test_a_symlink_loop_is_a_clear_error(dispatch, hermes_home: Path, tool: str,
                                         args: dict) -> None:
    add_bad_entries(hermes_home)
    answer = dispatch(tool, args)
    assert "is unreadable: a symlink loop" in answer["error"], answer
    assert answer["argument"] == ("name" if "name" in args else "run_id")
