"""Every valid example design has a design test file in examples/ whose cases cover each
branch: each condition true and false, each approval option, each agent with retries
failing once and past its retries, each delivery made and failed."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from hwf_lsp.rules.run_facts import approval_options
from hwf_lsp.rules.validator import validate_designer_graph
from hwf_lsp.workflow.design_test_files import load_test_file
from hwf_lsp.workflow.design_test_run import run_test_file

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TEST_FILES = sorted(EXAMPLES.glob("*.hwf-test.json"))


def valid_example_designs() -> set[Path]:
    found = set()
    for path in [*EXAMPLES.glob("*.hwf.json"), *EXAMPLES.glob("workflow-designs/*.json")]:
        try:
            design = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            continue
        if not validate_designer_graph(design):
            found.add(path.resolve())
    return found


def test_every_valid_example_design_has_a_test_file():
    tested = {Path(load_test_file(path).design_path).resolve() for path in TEST_FILES}
    assert valid_example_designs() <= tested
    assert len(valid_example_designs()) == 3


def branches_seen(path: Path) -> dict[str, set]:
    """What the cases of a test file made each step do, by node and kind of branch."""
    test = load_test_file(path)
    seen: dict[str, set] = defaultdict(set)
    for result in run_test_file(test):
        assert result.passed, (result.name, result.failures)
        state = result.outcome.state
        for node, word in result.outcome.step_states.items():
            seen[node].add(word)
        for node, choice in state["answers"].items():
            seen[node].add(f"answer:{choice}")
        for node in state["attempts"]:  # a failed attempt: the run failed there, or retried
            seen[node].add("failed" if result.outcome.step_states[node] == "failed"
                           else "retried")
        for node, ok in result.outcome.delivered.items():
            seen[node].add(f"delivered:{ok}")
    return seen


def missing_branches(path: Path) -> list[str]:
    test = load_test_file(path)
    seen = branches_seen(path)
    missing = []
    for node in test.design["nodes"]:
        node_id, kind, got = node["id"], node["type"], seen[node["id"]]
        wanted: set[str] = set()
        if kind == "condition":
            wanted = {"done", "skipped"}
        elif kind == "approval":
            wanted = {f"answer:{option}" for option in approval_options(node.get("options"))}
            wanted.add("waiting")
        elif kind == "agent":
            wanted = {"done", "failed"}
            if node.get("retries"):
                wanted.add("retried")
        elif kind == "output" and node.get("deliver"):
            wanted = {"delivered:True", "delivered:False"}
        missing.extend(f"{node_id}: {branch}" for branch in sorted(wanted - got))
    return missing


@pytest.mark.parametrize("path", TEST_FILES, ids=[p.name for p in TEST_FILES])
def test_the_cases_cover_each_branch(path):
    assert missing_branches(path) == []
