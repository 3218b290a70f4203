"""Generate the JSON Schema (draft 2020-12) of a design test file (`*.hwf-test.json`).

For editors that only speak JSON Schema (VS Code's `json.schemas`, JetBrains): keys,
result shapes, run statuses and step states are completed and checked as you type.
Generated from the same constants `rules/design_test_check.py` checks with, never hand-edited:

    python -m hwf_lsp.generators.design_test_schema > schema/hwf-test.schema.json

A schema cannot know the design a test names, so node ids, kinds and an approval's
options are `hwf test`'s job (its errors point at the field).  Pure: no I/O except
`main` printing.
"""

from __future__ import annotations

import sys
from typing import Any

from hwf_lsp.generators import json_file
from hwf_lsp.rules.design_test_check import OPTIONAL_CASE_KEYS, OPTIONAL_FILE_KEYS, STEP_STATES
from hwf_lsp.rules.vocabulary import RUN_STATUSES

SCHEMA_ID = "https://hermes-workflow.dev/schema/hwf-test.schema.json"
"""Stable identifier of the schema; a name, not necessarily a downloadable address."""
DRAFT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_PATH = "schema/hwf-test.schema.json"
"""Where the generated schema is committed, relative to the repository root."""

NODE_MAP = {"type": "object", "propertyNames": {"minLength": 1}}


def _described(text: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": text, **schema}


def result_schema() -> dict[str, Any]:
    """One mocked attempt: exactly one of output, structured, fail."""
    def one(key: str, value: dict[str, Any], text: str) -> dict[str, Any]:
        return {"type": "object", "required": [key], "additionalProperties": False,
                "properties": {key: _described(text, value)}}

    return _described("One attempt of an agent step, mocked.", {"oneOf": [
        one("output", {"type": "string"}, "The agent's text output."),
        one("structured", {}, "The agent's structured output (any JSON)."),
        one("fail", {"type": "string"}, "A failed attempt, and why: it counts against "
            "the step's retries."),
    ]})


def expect_schema() -> dict[str, Any]:
    properties: dict[str, Any] = {
        "status": _described("The run's status at the end.", {"enum": list(RUN_STATUSES)}),
        "steps": _described("Step id -> its state in the run facts' words.", {
            **NODE_MAP, "additionalProperties": {"enum": list(STEP_STATES)}}),
        "outputs": _described("Step id -> its output, compared exactly (as JSON).",
                              dict(NODE_MAP)),
        "delivered": _described("Output step id -> whether its delivery was made.", {
            **NODE_MAP, "additionalProperties": {"type": "boolean"}}),
        "warnings": _described("Condition step id -> whether the run warns about it (it "
                               "read a field of text, e.g. JSON an agent sent as text).", {
            **NODE_MAP, "additionalProperties": {"type": "boolean"}}),
    }
    return _described("What the run must end with; only what is listed is compared, and "
                      "at least one thing is.", {
        "type": "object", "minProperties": 1, "additionalProperties": False,
        "properties": properties})


def case_schema() -> dict[str, Any]:
    properties: dict[str, Any] = {
        "name": _described("The case's name, unique in the file.",
                           {"type": "string", "minLength": 1}),
        "agents": _described("Agent step id -> one result, or one per attempt in order. "
                             "A step with no result left parks the run (awaiting_agent).", {
                                 **NODE_MAP, "additionalProperties": {"anyOf": [
                                     {"$ref": "#/$defs/result"},
                                     {"type": "array", "minItems": 1,
                                      "items": {"$ref": "#/$defs/result"}}]}}),
        "answers": _described("Approval step id -> the option it is answered with. An "
                              "approval without one parks the run (awaiting_approval).", {
                                  **NODE_MAP, "additionalProperties": {"type": "string"}}),
        "failing_deliveries": _described("Output steps whose delivery fails.", {
            "type": "array", "items": {"type": "string", "minLength": 1}}),
        "expect": {"$ref": "#/$defs/expect"},
    }
    for key in OPTIONAL_CASE_KEYS:
        properties[key] = {"type": "string"}
    return {"type": "object", "required": ["name", "expect"], "additionalProperties": False,
            "properties": properties}


def build_schema() -> dict[str, Any]:
    properties: dict[str, Any] = {
        "design": _described("The design under test: a file relative to this one, inside its "
                             "project (docs/cli.md), else a design name in "
                             "$HERMES_HOME/workflow-designs.",
                             {"type": "string", "minLength": 1}),
        "cases": _described("The cases, each run in memory with mocked agents.",
                            {"type": "array", "items": {"$ref": "#/$defs/case"}}),
    }
    for key in OPTIONAL_FILE_KEYS:
        properties[key] = {"type": "string"}
    return {
        "$schema": DRAFT,
        "$id": SCHEMA_ID,
        "title": "Hermes Workflow design test",
        "description": "A *.hwf-test.json file: `hwf test` runs its cases (contract 7, "
                       "docs/cli.md).",
        "type": "object",
        "required": ["design", "cases"],
        "additionalProperties": False,
        "properties": properties,
        "$defs": {"case": case_schema(), "expect": expect_schema(),
                  "result": result_schema()},
    }


def render() -> str:
    """The schema file's exact text."""
    return json_file(build_schema())


if __name__ == "__main__":
    sys.stdout.write(render())
