"""Any JSON a test file may hold is either a runnable test or errors at places: the
checker never raises anything else, and what it accepts runs to a verdict."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.design_tests import DESIGN_FILE, branching_design

from hwf_lsp.rules.design_test_check import InvalidTestFile
from hwf_lsp.rules.vocabulary import RUN_STATUSES
from hwf_lsp.workflow.design_test_files import check_test_file
from hwf_lsp.workflow.design_test_run import differences, observed_expect, run_test_file


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    """A folder with the design the generated test files name."""
    folder = tmp_path_factory.mktemp("property")
    (folder / DESIGN_FILE).write_text(json.dumps(branching_design()), encoding="utf-8")
    return folder


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=3),
    max_leaves=8)
nodes = st.sampled_from(["start", "work", "high", "ok", "out", "nope"])
results = st.one_of(
    st.fixed_dictionaries({"output": st.text(max_size=5)}),
    st.fixed_dictionaries({"structured": st.fixed_dictionaries({"score": st.integers(0, 9)})}),
    st.fixed_dictionaries({"fail": st.text(max_size=5)}),
    json_values)
expects = st.fixed_dictionaries({}, optional={
    "status": st.sampled_from(["completed", "failed", "awaiting_agent", "done"]) | json_values,
    "steps": st.dictionaries(nodes, st.sampled_from(["done", "skipped", "waiting", "x"])),
    "outputs": st.dictionaries(nodes, json_values, max_size=2),
    "delivered": st.dictionaries(nodes, st.booleans() | json_values, max_size=2),
})
cases = st.fixed_dictionaries({"name": st.text(min_size=1, max_size=4) | json_values}, optional={
    "agents": st.dictionaries(nodes, results | st.lists(results, max_size=3)) | json_values,
    "answers": st.dictionaries(nodes, st.sampled_from(["approve", "reject", "maybe"])
                               | json_values),
    "failing_deliveries": st.lists(nodes | json_values, max_size=2) | json_values,
    "expect": expects | json_values,
})
test_files = json_values | st.fixed_dictionaries(
    {"design": st.just(DESIGN_FILE) | json_values,
     "cases": st.lists(cases | json_values, max_size=3) | json_values})


@settings(max_examples=200)
@given(test_files)
def test_any_json_is_a_test_or_errors_at_places(scratch, raw):
    try:
        test = check_test_file(raw, scratch / "t.hwf-test.json", designs_root=scratch)
    except InvalidTestFile as invalid:
        assert invalid.errors
        assert all(e.pointer == "" or e.pointer.startswith("/") for e in invalid.errors)
        return
    for result in run_test_file(test):
        assert all(isinstance(f, str) for f in result.failures)


valid_results = st.one_of(
    st.fixed_dictionaries({"output": st.text(max_size=5)}),
    st.fixed_dictionaries({"structured": st.fixed_dictionaries({"score": st.integers(0, 9)})}),
    st.fixed_dictionaries({"fail": st.text(max_size=5)}))
valid_cases = st.fixed_dictionaries({"expect": st.just({"status": "completed"})}, optional={
    "agents": st.fixed_dictionaries({"work": valid_results | st.lists(valid_results,
                                                                       min_size=1,
                                                                       max_size=3)}),
    "answers": st.fixed_dictionaries({"ok": st.sampled_from(["approve", "reject"])}),
    "failing_deliveries": st.just(["out"]),
})


@settings(max_examples=60)
@given(st.lists(valid_cases, min_size=1, max_size=3))
def test_a_snapshot_of_any_run_passes_as_its_expectation(scratch, cases):
    raw = {"design": DESIGN_FILE,
           "cases": [{"name": str(i), **case} for i, case in enumerate(cases)]}
    test = check_test_file(raw, scratch / "t.hwf-test.json", designs_root=scratch)
    for result in run_test_file(test):
        snapshot = observed_expect(test, result.outcome, {})
        assert snapshot["status"] in RUN_STATUSES
        assert differences(snapshot, result.outcome) == []
