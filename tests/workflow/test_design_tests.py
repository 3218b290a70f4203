"""Design test files (contract 7): every error names the case and the field, at a pointer."""

from __future__ import annotations

import json

import pytest
from support.design_tests import case, hwf_test, write_test

from hwf_lsp.rules.design_test_check import InvalidTestFile, pointer
from hwf_lsp.workflow.design_test_files import load_test_file

GOOD_RESULT = {"output": "x"}

# (label, test file (dict or text), [(pointer, case, field, part of msg)])
ERROR_CASES = [
    ("not JSON", '{"design": ', [("", None, None, "not valid JSON")]),
    ("not an object", "[]", [("", None, None, "not an array")]),
    ("missing design", {"cases": []},
     [("", None, "design", "missing design")]),
    ("design empty", hwf_test(design_ref=""),
     [("/design", None, "design", "not an empty string")]),
    ("design names nothing", hwf_test(design_ref="nowhere.hwf.json"),
     [("/design", None, "design", "no design file 'nowhere.hwf.json'")]),
    ("design not a string", hwf_test(design_ref=3),
     [("/design", None, "design", "not a number")]),
    ("missing cases", {"design": "flow.hwf.json"}, [("", None, "cases", "missing cases")]),
    ("cases not a list", {"design": "flow.hwf.json", "cases": {}},
     [("/cases", None, "cases", "must be an array")]),
    ("unknown top-level key", hwf_test(case(), tests=[]),
     [("/tests", None, "tests", "unknown key 'tests'")]),
    ("case not an object", hwf_test(3), [("/cases/0", None, None, "not a number")]),
    ("case without a name", hwf_test({"expect": {"status": "completed"}}),
     [("/cases/0", None, "name", "needs a name")]),
    ("two cases with one name", hwf_test(case("a"), case("a")),
     [("/cases/1/name", "a", "name", "two cases are named 'a'")]),
    ("case without expect", hwf_test({"name": "a"}),
     [("/cases/0", "a", "expect", "needs expect")]),
    ("unknown case key", hwf_test(case("a", answer={})),
     [("/cases/0/answer", "a", "answer", "did you mean 'answers'")]),
    ("mock for an unknown node", hwf_test(case("a", agents={"wrk": GOOD_RESULT})),
     [("/cases/0/agents/wrk", "a", "agents", "unknown node 'wrk'")]),
    ("mock for a node that is not an agent",
     hwf_test(case("a", agents={"high": GOOD_RESULT})),
     [("/cases/0/agents/high", "a", "agents", "'high' is a condition, not an agent")]),
    ("result with an unknown key", hwf_test(case("a", agents={"work": {"ouput": "x"}})),
     [("/cases/0/agents/work/ouput", "a", "agents", "unknown key 'ouput'")]),
    ("result with two keys",
     hwf_test(case("a", agents={"work": {"output": "x", "fail": "y"}})),
     [("/cases/0/agents/work", "a", "agents", "exactly one")]),
    ("result in a list with an unknown key",
     hwf_test(case("a", agents={"work": [GOOD_RESULT, {"error": "x"}]})),
     [("/cases/0/agents/work/1/error", "a", "agents", "unknown key 'error'")]),
    ("output not a string", hwf_test(case("a", agents={"work": {"output": 3}})),
     [("/cases/0/agents/work/output", "a", "agents", "must be a string")]),
    ("empty list of results", hwf_test(case("a", agents={"work": []})),
     [("/cases/0/agents/work", "a", "agents", "empty list")]),
    ("answer that is not an option", hwf_test(case("a", answers={"ok": "yes"})),
     [("/cases/0/answers/ok", "a", "answers", "'yes' is not an option of approval 'ok'")]),
    ("answer for an agent", hwf_test(case("a", answers={"work": "approve"})),
     [("/cases/0/answers/work", "a", "answers", "'work' is an agent, not an approval")]),
    ("failing delivery of an unknown node",
     hwf_test(case("a", failing_deliveries=["nope"])),
     [("/cases/0/failing_deliveries/0", "a", "failing_deliveries", "unknown node 'nope'")]),
    ("failing delivery of an agent", hwf_test(case("a", failing_deliveries=["work"])),
     [("/cases/0/failing_deliveries/0", "a", "failing_deliveries", "not an output")]),
    ("empty expect", hwf_test(case("a", expect={})),
     [("/cases/0/expect", "a", "expect", "expect is empty")]),
    ("unknown expect key", hwf_test(case("a", expect={"state": "completed"})),
     [("/cases/0/expect/state", "a", "expect", "did you mean 'status'")]),
    ("status not a run status", hwf_test(case("a", expect={"status": "done"})),
     [("/cases/0/expect/status", "a", "expect.status", "'done' is not a run status")]),
    ("state word not in the vocabulary",
     hwf_test(case("a", expect={"steps": {"work": "finished"}})),
     [("/cases/0/expect/steps/work", "a", "expect.steps", "'finished' is not a step state")]),
    ("state of an unknown node", hwf_test(case("a", expect={"steps": {"x": "done"}})),
     [("/cases/0/expect/steps/x", "a", "expect.steps", "unknown node 'x'")]),
    ("state of the trigger", hwf_test(case("a", expect={"steps": {"start": "done"}})),
     [("/cases/0/expect/steps/start", "a", "expect.steps", "not a step")]),
    ("output of an unknown node", hwf_test(case("a", expect={"outputs": {"x": 1}})),
     [("/cases/0/expect/outputs/x", "a", "expect.outputs", "unknown node 'x'")]),
    ("delivered of an agent", hwf_test(case("a", expect={"delivered": {"work": True}})),
     [("/cases/0/expect/delivered/work", "a", "expect.delivered", "not an output")]),
    ("delivered not a boolean", hwf_test(case("a", expect={"delivered": {"out": "yes"}})),
     [("/cases/0/expect/delivered/out", "a", "expect.delivered", "true or false")]),
    ("a node id with a slash is escaped",
     hwf_test(case("a", agents={"a/b~c": GOOD_RESULT})),
     [("/cases/0/agents/a~1b~0c", "a", "agents", "unknown node 'a/b~c'")]),
    ("every error, not only the first",
     hwf_test(case("a", agents={"x": GOOD_RESULT}), case("b", answers={"ok": "no"})),
     [("/cases/0/agents/x", "a", "agents", "unknown node"),
      ("/cases/1/answers/ok", "b", "answers", "not an option")]),
]


def check(tmp_path, test, expected) -> None:
    path = write_test(tmp_path, test)
    with pytest.raises(InvalidTestFile) as raised:
        load_test_file(path, designs_root=tmp_path / "store")
    got = [(e.pointer, e.case, e.field) for e in raised.value.errors]
    assert got == [item[:3] for item in expected], raised.value.errors
    for error, (*_, part) in zip(raised.value.errors, expected, strict=True):
        assert part in error.msg, error
        assert (f"case {error.case!r}" in str(error)) == (error.case is not None)


@pytest.mark.parametrize("label,test,expected", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_errors_name_the_case_and_the_field(tmp_path, label, test, expected):
    check(tmp_path, test, expected)


AT_KEY = {"unknown top-level key", "unknown case key", "mock for an unknown node",
          "mock for a node that is not an agent", "result with an unknown key",
          "result in a list with an unknown key", "answer for an agent", "unknown expect key",
          "state of an unknown node", "state of the trigger", "output of an unknown node",
          "delivered of an agent", "a node id with a slash is escaped"}
"""The errors about a member's key (an unknown key or node id, an id of the wrong kind):
the editor marks the key; every other error marks the value at its pointer."""


@pytest.mark.parametrize("label,test,expected", [c for c in ERROR_CASES if len(c[2]) == 1],
                         ids=[c[0] for c in ERROR_CASES if len(c[2]) == 1])
def test_an_error_says_whether_it_marks_the_key(tmp_path, label, test, expected):
    path = write_test(tmp_path, test)
    with pytest.raises(InvalidTestFile) as raised:
        load_test_file(path, designs_root=tmp_path / "store")
    assert [e.at_key for e in raised.value.errors] == [label in AT_KEY]


def test_a_design_with_defects_cannot_be_tested(tmp_path):
    path = write_test(tmp_path, hwf_test(case()),
                      the_design={"name": "flow", "nodes": [{"id": "t", "type": "trigger"},
                                                            {"id": "a", "type": "agent"}]})
    with pytest.raises(InvalidTestFile) as raised:
        load_test_file(path)
    (error,) = raised.value.errors
    assert (error.pointer, error.field) == ("/design", "design")
    assert "defect" in error.msg and "prompt" in error.msg


def test_a_design_name_is_read_from_the_store(tmp_path):
    store = tmp_path / "home" / "workflow-designs"
    store.mkdir(parents=True)
    (store / "stored.json").write_text(json.dumps(
        {"name": "stored", "nodes": [{"id": "t", "type": "trigger"}]}), encoding="utf-8")
    path = write_test(tmp_path, hwf_test(case(), design_ref="stored"))
    loaded = load_test_file(path, designs_root=store)
    assert (loaded.design_name, loaded.design_path) == ("stored", str(store / "stored.json"))


def test_a_valid_file_gives_its_cases(tmp_path):
    path = write_test(tmp_path, hwf_test(
        case("a", agents={"work": [{"fail": "no"}, {"structured": {"score": 1}}]},
             answers={"ok": "reject"}, failing_deliveries=["out"],
             expect={"status": "completed", "steps": {"work": "done"}})))
    loaded = load_test_file(path)
    (only,) = loaded.cases
    assert [(m.kind, m.value) for m in only.agents["work"]] == [
        ("fail", "no"), ("structured", {"score": 1})]
    assert (only.answers, only.failing_deliveries) == ({"ok": "reject"}, frozenset({"out"}))
    assert loaded.design_name == "flow"


def test_without_expect_checking_a_case_may_lack_expect(tmp_path):
    path = write_test(tmp_path, hwf_test({"name": "a"}))
    assert load_test_file(path, with_expect=False).cases[0].expect == {}


@pytest.mark.parametrize("parts,expected", [
    ((), ""), (("cases", 2, "agents", "draft"), "/cases/2/agents/draft"),
    (("a/b", "~x"), "/a~1b/~0x"),
])
def test_pointer(parts, expected):
    assert pointer(*parts) == expected
