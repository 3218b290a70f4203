"""`hwf test` (contract 7): discovery, exit codes, the three formats, --write-expectations,
and the examples' own tests."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest
from hwf_cli_helpers import EXAMPLES
from support.design_tests import case, hwf_test, write_test

PASSING = case("passes", {"status": "awaiting_agent"})
FAILING = case("fails", {"status": "completed", "steps": {"work": "done"}})
INVALID = case("broken", agents={"nope": {"output": "x"}})

# (label, cases, extra args, exit code, part of stdout, part of stderr)
EXIT_CASES = [
    ("every case passes", [PASSING], [], 0, "ok    passes", "1 case: 1 passed, 0 failed"),
    ("a case fails", [PASSING, FAILING], [], 1, "FAIL  fails",
     "2 cases: 1 passed, 1 failed"),
    ("an invalid file", [INVALID], [], 2, "",
     "case 'broken' /cases/0/agents/nope: unknown node 'nope'"),
    ("an unknown format", [PASSING], ["--format", "xml"], 2, "", "invalid choice"),
]


@pytest.mark.parametrize("label,cases,extra,code,stdout,stderr", EXIT_CASES,
                         ids=[c[0] for c in EXIT_CASES])
def test_exit_codes(hwf, tmp_path, label, cases, extra, code, stdout, stderr):
    path = write_test(tmp_path, hwf_test(*cases))
    result = hwf("test", *extra, str(path))
    assert result.code == code, result.stderr
    assert stdout in result.stdout
    assert stderr in result.stderr
    assert "Traceback" not in result.stderr


def test_a_wrong_expectation_names_the_node_and_both_values(hwf, tmp_path):
    path = write_test(tmp_path, hwf_test(FAILING))
    result = hwf("test", str(path))
    assert result.code == 1
    assert "status: expected 'completed', got 'awaiting_agent'" in result.stdout
    assert "step 'work': expected 'done', got 'waiting'" in result.stdout


def test_a_missing_path_is_a_usage_error(hwf, tmp_path):
    result = hwf("test", str(tmp_path / "nowhere"))
    assert result.code == 2
    assert "no such file or directory" in result.stderr


def test_json_is_contract_7(hwf, tmp_path):
    path = write_test(tmp_path, hwf_test(PASSING, FAILING))
    result = hwf("test", "--format", "json", str(path))
    assert result.code == 1
    (entry,) = result.json()
    assert entry == {"path": str(path), "design": "flow.hwf.json", "cases": [
        {"name": "passes", "passed": True, "failures": []},
        {"name": "fails", "passed": False, "failures": [
            "status: expected 'completed', got 'awaiting_agent'",
            "step 'work': expected 'done', got 'waiting'"]}]}


def test_json_of_an_invalid_file_carries_its_errors(hwf, tmp_path):
    path = write_test(tmp_path, hwf_test(INVALID))
    result = hwf("test", "--format", "json", str(path))
    assert result.code == 2
    (entry,) = result.json()
    assert entry["cases"] == [] and entry["design"] is None
    assert entry["errors"] == [{"pointer": "/cases/0/agents/nope", "case": "broken",
                                "field": "agents", "msg": "unknown node 'nope': the "
                                "design has no such node"}]


def test_junit_is_what_ci_systems_read(hwf, tmp_path):
    write_test(tmp_path / "a", hwf_test(PASSING, FAILING))
    write_test(tmp_path / "b", hwf_test(INVALID))
    result = hwf("test", "--format", "junit", str(tmp_path))
    assert result.code == 2
    root = ET.fromstring(result.stdout)
    assert root.tag == "testsuites"
    assert {k: root.get(k) for k in ("tests", "failures", "errors")} == {
        "tests": "3", "failures": "1", "errors": "1"}
    suites = root.findall("testsuite")
    assert [s.get("name").rsplit("/", 2)[-2] for s in suites] == ["a", "b"]
    cases = suites[0].findall("testcase")
    assert [c.get("name") for c in cases] == ["passes", "fails"]
    failure = cases[1].find("failure")
    assert failure.get("message") == "status: expected 'completed', got 'awaiting_agent'"
    assert "step 'work'" in failure.text
    assert all(float(c.get("time")) >= 0 for c in cases)
    error = suites[1].find("testcase/error")
    assert "/cases/0/agents/nope" in error.get("message")


def test_default_is_every_test_file_under_the_current_directory(hwf, tmp_path):
    write_test(tmp_path / "x", hwf_test(PASSING))
    write_test(tmp_path / "x" / "deeper", hwf_test(PASSING), name="two.hwf-test.json")
    write_test(tmp_path / ".hidden", hwf_test(FAILING))
    write_test(tmp_path / "node_modules", hwf_test(FAILING))
    (tmp_path / "x" / "not-a-test.json").write_text("{}", encoding="utf-8")
    result = hwf("test", "--format", "json", cwd=tmp_path)
    assert result.code == 0, result.stdout + result.stderr
    assert sorted(e["path"] for e in result.json()) == [
        "x/deeper/two.hwf-test.json", "x/flow.hwf-test.json"]


def test_no_test_files_is_said(hwf, tmp_path):
    result = hwf("test", cwd=tmp_path)
    assert result.code == 0
    assert "no *.hwf-test.json files" in result.stderr


def test_write_expectations_fills_expect_and_keeps_the_rest(hwf, tmp_path):
    test = {"$schema": "x", "design": "flow.hwf.json", "cases": [
        {"expect": {"status": "failed"}, "name": "first", "agents": {"work": {"output": "t"}}},
        {"name": "second", "answers": {"ok": "approve"},
         "agents": {"work": {"structured": {"score": 7}}}}]}
    path = write_test(tmp_path, test)
    result = hwf("test", "--write-expectations", str(path))
    assert result.code == 0, result.stderr
    assert "wrote the expectations of 2 cases" in result.stdout
    written = json.loads(path.read_text(encoding="utf-8"))
    assert list(written) == ["$schema", "design", "cases"]
    first, second = written["cases"]
    assert list(first) == ["expect", "name", "agents"]
    assert first["expect"]["status"] == "completed"
    assert first["expect"]["steps"]["high"] == "skipped"
    assert list(second) == ["name", "answers", "agents", "expect"]
    assert second["expect"]["outputs"] == {
        "out": {"ok": {"choice": "approve"}, "work": {"score": 7}}}
    assert second["expect"]["delivered"] == {"out": True}
    assert hwf("test", str(path)).code == 0
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".tmp-")] == []


def test_write_expectations_refuses_an_invalid_file_and_leaves_it(hwf, tmp_path):
    path = write_test(tmp_path, hwf_test(INVALID))
    before = path.read_bytes()
    result = hwf("test", "--write-expectations", str(path))
    assert result.code == 2
    assert path.read_bytes() == before


def test_the_examples_pass(hwf):
    result = hwf("test", "--format", "json", str(EXAMPLES))
    assert result.code == 0, result.stdout + result.stderr
    tested = {entry["design"] for entry in result.json()}
    assert tested == {"hello-world.hwf.json", "review-flow.hwf.json",
                      "workflow-designs/nightly-digest.json"}
    assert not hwf.home.exists()  # nothing written to $HERMES_HOME
