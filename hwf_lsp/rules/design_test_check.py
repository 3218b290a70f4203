"""Design test files (`*.hwf-test.json`, contract 7) checked against their design.

A test file names a design and gives cases: mocked agent results per attempt, approval
answers, failing deliveries, and what the run must end with.  Everything a case names is
checked against the design before anything runs, so a typo is an error at its place (a
JSON pointer such as `/cases/2/agents/draft`, which the editor turns into a range), never
a case that fails for a reason nobody wrote.  Pure: the design arrives as a value
(`DesignRead`); finding and reading it is the engine's `workflow/design_test_files.py`,
running the cases `workflow/design_test_run.py`.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hwf_lsp.rules.defects import format_defects
from hwf_lsp.rules.plan import build_run_plan
from hwf_lsp.rules.run_facts import approval_options
from hwf_lsp.rules.strict_json import NotStrictJson, refuse_deep, strict_dumps
from hwf_lsp.rules.validator import validate_designer_graph
from hwf_lsp.rules.vocabulary import AGENT, APPROVAL, OUTPUT, RUN_STATUSES

if TYPE_CHECKING:
    from pathlib import Path

TEST_FILE_SUFFIX = ".hwf-test.json"

STEP_STATES: tuple[str, ...] = (
    "done", "reused", "answered", "rejected", "skipped", "waiting", "failed",
    "not delivered", "not run", "running",
)
"""The run facts' step states (contract 7): the words an `expect.steps` entry may use."""
NOT_RUN = "not run"

FILE_KEYS = ("design", "cases")
OPTIONAL_FILE_KEYS = ("$schema", "description")
CASE_KEYS = ("name", "agents", "answers", "failing_deliveries", "expect")
OPTIONAL_CASE_KEYS = ("description",)
EXPECT_KEYS = ("status", "steps", "outputs", "delivered", "warnings")
RESULT_KEYS = ("output", "structured", "fail")


@dataclass(frozen=True)
class TestFileError:
    """One thing wrong with a test file: where (a JSON pointer into the file), which case
    (its name, else None), which field of the contract, and why."""

    __test__ = False  # not a pytest class, whatever its name says

    pointer: str
    case: str | None
    field: str | None
    msg: str
    at_key: bool = False
    """The error is about the member's key at `pointer` (an unknown key or node id), not
    its value: the editor marks the key."""

    def __str__(self) -> str:
        where = f"case {self.case!r} " if self.case is not None else ""
        return f"{where}{self.pointer or '/'}: {self.msg}"

    def as_dict(self) -> dict[str, Any]:
        return {"pointer": self.pointer, "case": self.case, "field": self.field,
                "msg": self.msg}


class InvalidTestFile(ValueError):
    """The test file cannot run: every error found, each at its place."""

    def __init__(self, path: str | Path, errors: list[TestFileError]) -> None:
        self.path = str(path)
        self.errors = errors
        super().__init__("; ".join(str(e) for e in errors))


@dataclass(frozen=True)
class MockResult:
    """One mocked attempt of an agent step: its `output`, its `structured` result, or a
    failure (`fail`, the reason)."""

    kind: str
    value: Any


@dataclass
class DesignCase:
    """One case, checked against the design."""

    name: str
    index: int
    agents: dict[str, list[MockResult]] = field(default_factory=dict)
    answers: dict[str, str] = field(default_factory=dict)
    failing_deliveries: frozenset[str] = frozenset()
    expect: dict[str, Any] = field(default_factory=dict)


@dataclass
class DesignTestFile:
    """A test file that can run: its design (valid), the design's name, its cases, and the
    file's JSON as read (`--write-expectations` writes it back with `expect` filled)."""

    __test__ = False

    path: str
    raw: dict[str, Any]
    design_ref: str
    design: dict[str, Any]
    design_name: str
    design_path: str
    cases: list[DesignCase]


def pointer(*parts: str | int) -> str:
    """A JSON pointer (RFC 6901): `~` and `/` inside a key escaped."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def _type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array" if isinstance(value, list) else "an object"


def _did_you_mean(word: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(word, choices, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


@dataclass(frozen=True)
class DesignRead:
    """The design a test file names, as the engine read it (defects and all): the design,
    the name its runs are filed under, and the file it was read from."""

    design: dict[str, Any]
    name: str
    path: str
    defects: list[dict[str, Any]] | None = None
    """`validate_designer_graph(design)` when the reader checked it (a host keeping the
    read for the next keystroke keeps this too); None: checked where it is needed."""


def design_reference(raw: Any) -> str | None:
    """The design a test file names (a design file or a stored design's name), if any."""
    ref = raw.get("design") if isinstance(raw, dict) else None
    return ref if isinstance(ref, str) and ref else None


def examine_test_file(raw: Any, path: str | Path, found: DesignRead | str | None, *,
                      with_expect: bool = True
                      ) -> tuple[DesignTestFile | None, list[TestFileError]]:
    """(the test file, when its design can run; every error), for the editor, which shows
    the errors and still completes, and for `check_test_file`, which raises them.
    `found` is what the engine read for `design_reference(raw)`: the design, or why none
    could be read."""
    if not isinstance(raw, dict):
        return None, [TestFileError(
            "", None, None, f"a test file is a JSON object with design and cases, not "
            f"{_type_name(raw)}")]
    errors: list[TestFileError] = []
    for key in raw:
        if key not in FILE_KEYS + OPTIONAL_FILE_KEYS:
            errors.append(TestFileError(pointer(key), None, key, f"unknown key {key!r}; a "
                                        "test file has design and cases"
                                        f"{_did_you_mean(key, list(FILE_KEYS))}", True))
    design_ref = raw.get("design")
    runnable = _runnable(design_ref, "design" in raw, found, errors)
    cases_value = raw.get("cases")
    if not isinstance(cases_value, list):
        errors.append(TestFileError(pointer("cases") if "cases" in raw else "", None, "cases",
                                    "cases must be an array of cases" if "cases" in raw
                                    else "missing cases: an array of cases"))
        cases_value = []
    if runnable is None:  # nothing to check the cases against
        errors.extend(_case_shape_errors(cases_value))
        return None, errors
    cases = _CaseChecker(runnable.design, errors, with_expect).check_all(cases_value)
    return DesignTestFile(str(path), raw, str(design_ref), runnable.design, runnable.name,
                          runnable.path, cases), errors


def _runnable(ref: Any, given: bool, found: DesignRead | str | None,
              errors: list[TestFileError]) -> DesignRead | None:
    """The design read for `design` when it can run; None (an error recorded) otherwise."""
    at = pointer("design") if given else ""

    def fail(msg: str) -> None:
        errors.append(TestFileError(at, None, "design", msg))

    if not given:
        fail("missing design: a design file (relative to this file) or a stored design's "
             "name")
        return None
    if not isinstance(ref, str) or not ref:
        fail(f"design must be a design file or a design name, not "
             f"{'an empty string' if ref == '' else _type_name(ref)}")
        return None
    if not isinstance(found, DesignRead):
        fail(found or f"no design {ref!r}")
        return None
    defects = found.defects if found.defects is not None \
        else validate_designer_graph(found.design)
    if defects:
        fail(format_defects(f"design {ref!r}", defects) + "; a design with defects cannot "
             "run (hwf check shows where)")
        return None
    return found


def _case_shape_errors(cases: list[Any]) -> list[TestFileError]:
    """With no design to check against: only that each case is an object with a name."""
    return [TestFileError(pointer("cases", i), None, None, "a case must be an object")
            for i, case in enumerate(cases) if not isinstance(case, dict)]


class _CaseChecker:
    """Checks each case against the design, recording errors at their places."""

    def __init__(self, design: dict[str, Any], errors: list[TestFileError],
                 with_expect: bool = True) -> None:
        self.with_expect = with_expect
        self.nodes: dict[str, dict] = {}
        for node in design["nodes"]:
            self.nodes.setdefault(node["id"], node)
        self.steps = [step["id"] for step in build_run_plan(design)]
        self.errors = errors
        self.case: str | None = None

    def error(self, at: str, field_name: str | None, msg: str, *, key: bool = False) -> None:
        self.errors.append(TestFileError(at, self.case, field_name, msg, key))

    def check_all(self, cases: list[Any]) -> list[DesignCase]:
        checked: list[DesignCase] = []
        seen: set[str] = set()
        for index, case in enumerate(cases):
            self.case = None
            at = pointer("cases", index)
            if not isinstance(case, dict):
                self.error(at, None, f"a case must be an object, not {_type_name(case)}")
                continue
            name = case.get("name")
            if isinstance(name, str) and name:
                self.case = name
                if name in seen:
                    self.error(pointer("cases", index, "name"), "name",
                               f"two cases are named {name!r}; each case needs its own name")
                seen.add(name)
            else:
                self.error(pointer("cases", index, "name") if "name" in case else at, "name",
                           "a case needs a name (a non-empty string)")
            checked.append(self.check_case(case, index, name if isinstance(name, str) else ""))
        return checked

    def check_case(self, case: dict[str, Any], index: int, name: str) -> DesignCase:
        at = pointer("cases", index)
        for key in case:
            if key not in CASE_KEYS + OPTIONAL_CASE_KEYS:
                self.error(pointer("cases", index, key), key,
                           f"unknown key {key!r}; a case has {', '.join(CASE_KEYS)}"
                           f"{_did_you_mean(key, list(CASE_KEYS))}", key=True)
        result = DesignCase(name, index)
        result.agents = self.agents(case.get("agents"), at + "/agents")
        result.answers = self.answers(case.get("answers"), at + "/answers")
        result.failing_deliveries = self.failing(case.get("failing_deliveries"),
                                                 at + "/failing_deliveries")
        if not self.with_expect:
            pass
        elif "expect" not in case:
            self.error(at, "expect", "a case needs expect (what the run must end with)")
        else:
            result.expect = self.expect(case["expect"], at + "/expect")
        return result

    # --- what a case names ------------------------------------------------

    def node(self, node_id: str, at: str, field_name: str, kinds: tuple[str, ...],
             what: str, *, on_key: bool = True) -> bool:
        """Whether `node_id` is a node of one of `kinds`; else an error at `at` (on its
        key: the id is a key everywhere but in failing_deliveries)."""
        node = self.nodes.get(node_id)
        if node is None:
            self.error(at, field_name, f"unknown node {node_id!r}: the design has no such "
                       f"node{_did_you_mean(node_id, list(self.nodes))}", key=on_key)
            return False
        if node.get("type") not in kinds:
            self.error(at, field_name, f"{node_id!r} is {_a(node.get('type'))}, not {what}",
                       key=on_key)
            return False
        return True

    def mapping(self, value: Any, at: str, field_name: str, what: str) -> dict[str, Any]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.error(at, field_name, f"{field_name} must be an object of {what}, not "
                       f"{_type_name(value)}")
            return {}
        return value

    def agents(self, value: Any, at: str) -> dict[str, list[MockResult]]:
        mocks: dict[str, list[MockResult]] = {}
        for node_id, given in self.mapping(value, at, "agents", "node: result(s)").items():
            here = f"{at}{pointer(node_id)}"
            if not self.node(node_id, here, "agents", (AGENT,), "an agent"):
                continue
            if isinstance(given, list):
                if not given:
                    self.error(here, "agents", "an empty list of results: give one result "
                               "per attempt, or leave the node out (the run then parks)")
                results = [self.result(r, f"{here}/{i}") for i, r in enumerate(given)]
            else:
                results = [self.result(given, here)]
            mocks[node_id] = [r for r in results if r is not None]
        return mocks

    def result(self, value: Any, at: str) -> MockResult | None:
        """A RESULT: exactly one of {"output": str}, {"structured": any}, {"fail": str}."""
        shapes = 'a result is {"output": str}, {"structured": any} or {"fail": str}'
        if not isinstance(value, dict):
            self.error(at, "agents", f"{shapes}, not {_type_name(value)}")
            return None
        unknown = [k for k in value if k not in RESULT_KEYS]
        for key in unknown:
            self.error(f"{at}{pointer(key)}", "agents", f"unknown key {key!r} in a result; "
                       f"{shapes}{_did_you_mean(key, list(RESULT_KEYS))}", key=True)
        known = [k for k in value if k in RESULT_KEYS]
        if unknown:
            return None
        if len(known) != 1:
            self.error(at, "agents", f"{shapes}: exactly one of these keys, not "
                       f"{len(known)}")
            return None
        kind = known[0]
        if kind in ("output", "fail") and not isinstance(value[kind], str):
            self.error(f"{at}{pointer(kind)}", "agents",
                       f"{kind} must be a string, not {_type_name(value[kind])}")
            return None
        return MockResult(kind, value[kind])

    def answers(self, value: Any, at: str) -> dict[str, str]:
        answers: dict[str, str] = {}
        for node_id, choice in self.mapping(value, at, "answers", "node: choice").items():
            here = f"{at}{pointer(node_id)}"
            if not self.node(node_id, here, "answers", (APPROVAL,), "an approval"):
                continue
            options = approval_options(self.nodes[node_id].get("options"))
            if choice not in options:
                self.error(here, "answers", f"{choice!r} is not an option of approval "
                           f"{node_id!r}: choose one of {', '.join(map(repr, options))}")
                continue
            answers[node_id] = choice
        return answers

    def failing(self, value: Any, at: str) -> frozenset[str]:
        if value is None:
            return frozenset()
        if not isinstance(value, list):
            self.error(at, "failing_deliveries", "failing_deliveries must be an array of "
                       f"output node ids, not {_type_name(value)}")
            return frozenset()
        failing = set()
        for i, node_id in enumerate(value):
            here = f"{at}/{i}"
            if not isinstance(node_id, str):
                self.error(here, "failing_deliveries",
                           f"a node id is a string, not {_type_name(node_id)}")
            elif self.node(node_id, here, "failing_deliveries", (OUTPUT,), "an output",
                           on_key=False):
                if not self.nodes[node_id].get("deliver"):
                    self.error(here, "failing_deliveries",
                               f"output {node_id!r} has no deliver: it delivers nothing "
                               "that could fail")
                else:
                    failing.add(node_id)
        return frozenset(failing)

    # --- what a case expects ----------------------------------------------

    def expect(self, value: Any, at: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.error(at, "expect", f"expect must be an object, not {_type_name(value)}")
            return {}
        for key in value:
            if key not in EXPECT_KEYS:
                self.error(f"{at}{pointer(key)}", "expect", f"unknown key {key!r}; expect "
                           f"has {', '.join(EXPECT_KEYS)}{_did_you_mean(key, list(EXPECT_KEYS))}",
                           key=True)
        if not value:
            self.error(at, "expect", f"expect is empty: a case that compares nothing always "
                       f"passes; give at least one of {', '.join(EXPECT_KEYS)} (hwf test "
                       "--write-expectations fills it from a run)")
        if "status" in value and value["status"] not in RUN_STATUSES:
            self.error(f"{at}/status", "expect.status", f"{value['status']!r} is not a run "
                       f"status: one of {', '.join(RUN_STATUSES)}")
        self.expected_per_step(value.get("steps"), f"{at}/steps", "steps",
                               lambda state, here: self.step_state(state, here))
        self.expected_per_step(value.get("outputs"), f"{at}/outputs", "outputs",
                               lambda output, here: self.storable(output, here))
        self.expected_per_node(value.get("delivered"), f"{at}/delivered")
        self.expected_warnings(value.get("warnings"), f"{at}/warnings")
        return value

    def expected_per_step(self, value: Any, at: str, key: str, check: Any) -> None:
        field_name = f"expect.{key}"
        for node_id, expected in self.mapping(value, at, field_name, "node: value").items():
            here = f"{at}{pointer(node_id)}"
            if node_id in self.nodes and node_id not in self.steps:
                self.error(here, field_name, f"{node_id!r} is {_a(self.nodes[node_id].get('type'))}, "
                           "not a step: a run has no state or output for it", key=True)
            elif self.node(node_id, here, field_name, (AGENT, "condition", APPROVAL, OUTPUT),
                           "a step") and check is not None:
                check(expected, here)

    def storable(self, output: Any, at: str) -> None:
        """An expected output a run could store: never NaN or Infinity, never deeper than
        a run keeps (else the case could never pass)."""
        try:
            refuse_deep(output, strict_dumps(output, ensure_ascii=False))
        except NotStrictJson as exc:
            self.error(at, "expect.outputs", f"this output {exc}: a run's output never "
                       "holds it, so the case could not pass")

    def step_state(self, state: Any, at: str) -> None:
        if state not in STEP_STATES:
            self.error(at, "expect.steps", f"{state!r} is not a step state: one of "
                       f"{', '.join(STEP_STATES)}")

    def expected_per_node(self, value: Any, at: str) -> None:
        for node_id, expected in self.mapping(value, at, "expect.delivered",
                                              "output: true/false").items():
            here = f"{at}{pointer(node_id)}"
            if self.node(node_id, here, "expect.delivered", (OUTPUT,), "an output") \
                    and not isinstance(expected, bool):
                self.error(here, "expect.delivered", f"delivered is true or false, not "
                           f"{_type_name(expected)}")


    def expected_warnings(self, value: Any, at: str) -> None:
        """`expect.warnings`: condition id -> whether the run warns about it (it read a
        field of text)."""
        for node_id, expected in self.mapping(value, at, "expect.warnings",
                                              "condition: true/false").items():
            here = f"{at}{pointer(node_id)}"
            if self.node(node_id, here, "expect.warnings", ("condition",), "a condition") \
                    and not isinstance(expected, bool):
                self.error(here, "expect.warnings", f"a warning is expected (true) or not "
                           f"(false), not {_type_name(expected)}")


def _a(kind: Any) -> str:
    if not isinstance(kind, str):
        return "a node of no kind"
    return f"{'an' if kind[:1] in 'aeiou' else 'a'} {kind}"
