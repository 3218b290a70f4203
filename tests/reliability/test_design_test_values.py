"""Values a design test file can hold that no run can (issue 45, B3, B4).

- `expect.outputs` holding NaN, Infinity or 1e999: an error at its place (a run's output
  never holds them, so the case could never pass), never an internal error.
- A structured mock nested deeper than a run stores: the step fails saying so, in the
  engine that `hwf test` and the server's `hwf.runDesignTests` share (was: a
  RecursionError when the run was saved).
"""

from __future__ import annotations

import json

import pytest
from hostile import hwf
from support.design_tests import case, hwf_test, write_test

from hwf_lsp.workflow.design_test_files import load_test_file
from hwf_lsp.workflow.design_test_run import run_test_file

MOCK = {"work": {"structured": {"score": 7}}}


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_a_non_finite_expected_output_is_an_error_at_its_place(tmp_path, number):
    expect = {"status": "completed", "outputs": {"work": {"score": "NUMBER"}}}
    text = json.dumps(hwf_test(case("c", expect, agents=MOCK))).replace('"NUMBER"', number)
    path = write_test(tmp_path, text)
    done = hwf("test", str(path), home=None)
    assert "internal error" not in done.text
    assert done.code == 2, done.text
    assert "/cases/0/expect/outputs/work" in done.stderr
    assert "NaN and Infinity" in done.stderr


@pytest.mark.parametrize("depth", [513, 700])  # deeper: the CLI's test (pytest's own stack)
def test_a_deep_mock_fails_its_step_saying_why(tmp_path, depth):
    deep = "[" * depth + "1" + "]" * depth
    mock = {"structured": "DEEP"}
    text = json.dumps(hwf_test(case("c", agents={"work": [mock, mock]})))
    path = write_test(tmp_path, text.replace('"DEEP"', deep))
    [result] = run_test_file(load_test_file(path))
    assert result.outcome.status == "failed"
    assert "nested" in result.outcome.state["error"]
