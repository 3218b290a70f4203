"""The JSON Schema of design test files: generated, accepts every example test file, and
says what the checker says about keys, results, statuses and states."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft7Validator, Draft202012Validator

from hwf_lsp.generators import design_test_schema
from hwf_lsp.rules.design_test_check import CASE_KEYS, EXPECT_KEYS, FILE_KEYS

REPO = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((REPO / design_test_schema.SCHEMA_PATH).read_text(encoding="utf-8"))
EXAMPLE_TESTS = sorted((REPO / "examples").glob("*.hwf-test.json"))


def test_committed_file_is_the_generated_output():
    assert (REPO / design_test_schema.SCHEMA_PATH).read_text(encoding="utf-8") == \
        design_test_schema.render(), ("stale: run `python -m hwf_lsp.generators."
                                      f"design_test_schema > {design_test_schema.SCHEMA_PATH}`")


def test_the_schema_knows_the_checker_s_keys():
    defs = SCHEMA["$defs"]
    assert set(FILE_KEYS) <= set(SCHEMA["properties"])
    assert set(CASE_KEYS) <= set(defs["case"]["properties"])
    assert list(defs["expect"]["properties"]) == list(EXPECT_KEYS)


@pytest.mark.parametrize("path", EXAMPLE_TESTS, ids=[p.name for p in EXAMPLE_TESTS])
@pytest.mark.parametrize("validator", [Draft202012Validator, Draft7Validator])
def test_every_example_test_file_is_valid(path, validator):
    validator.check_schema(SCHEMA)
    validator(SCHEMA).validate(json.loads(path.read_text(encoding="utf-8")))


def file_with(**case):
    return {"design": "d.hwf.json",
            "cases": [{"name": "c", "expect": {"status": "completed"}, **case}]}


# (label, test file, whether the schema accepts it)
CASES = [
    ("minimal", file_with(), True),
    ("every key", file_with(agents={"a": [{"fail": "x"}, {"structured": None}]},
                            answers={"b": "approve"}, failing_deliveries=["o"],
                            expect={"status": "completed", "steps": {"a": "not delivered"},
                                    "outputs": {"o": [1]}, "delivered": {"o": False}}), True),
    ("result with an unknown key", file_with(agents={"a": {"ouput": "x"}}), False),
    ("result with two keys", file_with(agents={"a": {"output": "x", "fail": "y"}}), False),
    ("empty list of results", file_with(agents={"a": []}), False),
    ("unknown status", file_with(expect={"status": "done"}), False),
    ("empty expect", file_with(expect={}), False),
    ("unknown state", file_with(expect={"steps": {"a": "finished"}}), False),
    ("delivered not a boolean", file_with(expect={"delivered": {"o": "yes"}}), False),
    ("unknown case key", file_with(answer={}), False),
    ("case without expect", {"design": "d", "cases": [{"name": "c"}]}, False),
    ("no design", {"cases": []}, False),
]


@pytest.mark.parametrize("label,test,valid", CASES, ids=[c[0] for c in CASES])
def test_the_schema_s_verdict(label, test, valid):
    assert Draft202012Validator(SCHEMA).is_valid(test) is valid
