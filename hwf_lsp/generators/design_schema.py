"""Generate the JSON Schema (draft 2020-12) of a design from the vocabulary.

The schema serves tools that only speak JSON Schema (VS Code's `json.schemas`,
JetBrains, CI linters).  It is generated, never hand-edited, so it cannot drift
from the rulebook's vocabulary:

    python -m hwf_lsp.generators.design_schema > schema/hermes-workflow-design.schema.json

and a test checks that the committed file equals this module's output.

Agreement with the rulebook (`validate_designer_graph`) is one-sided by design:
every design the rulebook accepts, the schema accepts; the per-field defects a
schema can express (kind, required payload, type, range, enum, list shape) it
rejects too.  Unique ids, edges to real nodes, cycles, exactly one trigger and
whether a condition names a real node are beyond JSON Schema: that is the
language server's job.

Only keywords that mean the same in draft 7 are used (no `prefixItems`,
`unevaluated*`, `dependent*`; `$ref` never has siblings), so older validators such
as JetBrains' draft-7 mode give the same verdicts.  Pure: no pygls, no I/O except
`main` printing.
"""

from __future__ import annotations

import re
import sys
from typing import Any

from hwf_lsp.generators import json_file
from hwf_lsp.rules import vocabulary as vocab
from hwf_lsp.rules.conditions import NAME_PATTERN, NUMBER_RE, STRING_RE

SCHEMA_ID = "https://hermes-workflow.dev/schema/hermes-workflow-design.schema.json"
"""Stable identifier of the schema; a name, not necessarily a downloadable address."""
DRAFT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_PATH = "schema/hermes-workflow-design.schema.json"
"""Where the generated schema is committed, relative to the repository root."""


def _whitespace_class() -> str:
    """The characters Python's `str.strip()` and `\\s` treat as whitespace, as regex ranges.

    Spelled out because `\\s` differs between engines (JavaScript adds U+FEFF and
    lacks U+001C-U+001F and U+0085; Java's default is ASCII only): with an explicit
    class, Python, VS Code and JetBrains draw the same line as the rulebook.
    """
    codes = [c for c in range(sys.maxunicode + 1) if chr(c).isspace()]
    ranges: list[list[int]] = []
    for code in codes:
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    return "".join(
        f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in ranges
    )


WHITESPACE = _whitespace_class()
NON_BLANK = f"[^{WHITESPACE}]"
"""Some character that is not whitespace: the rulebook rejects a whitespace-only payload
as it rejects an empty one (`not value.strip()`)."""
CHANNEL_TARGET_PATTERN = ":"
"""A channel target is `<platform>:<address>`: it must contain a colon."""

# VS Code shows `patternErrorMessage` / `errorMessage` instead of quoting the regex.
NON_BLANK_MESSAGE = "Must not be empty or blank."
CHANNEL_TARGET_MESSAGE = 'A channel target looks like "<platform>:<address>" and contains ":".'
CONDITION_MESSAGE = (
    "Expected out.<node>.<path> <op> <literal>: op is one of == != < <= > >=; literal is a "
    "JSON number, a double-quoted string, true, false or null; node and keys use letters, "
    "digits, _ and - only."
)

NOT_BLANK = {"pattern": NON_BLANK, "patternErrorMessage": NON_BLANK_MESSAGE}


def _plain(markdown: str) -> str:
    """The plain-text form of a doc string: backticks dropped (for `description`)."""
    return markdown.replace("`", "")


def condition_pattern() -> str:
    """An ECMA-262 and Python regex accepting every condition the parser accepts.

    It mirrors conditions.py's grammar (built from the same token patterns), but it
    is an approximation: it cannot check that `<node>` names a real node, nor that a
    number fits in a float.  So it may accept what the rulebook rejects, never the
    reverse.
    """
    name = NAME_PATTERN
    ops = "|".join(re.escape(op) for op in vocab.CONDITION_OPERATORS)
    literal = f"{NUMBER_RE.pattern}|{STRING_RE.pattern}|true|false|null"
    space = f"[{WHITESPACE}]*"
    return (
        rf"^{space}out\.{name}(?:\.{name}){{1,{vocab.MAX_PATH_SEGMENTS}}}"
        rf"{space}(?:{ops}){space}(?:{literal}){space}$"
    )


# --- one field --------------------------------------------------------------


def _doc_keywords(field: vocab.Field) -> dict[str, Any]:
    out: dict[str, Any] = {
        "title": field.name,
        "description": _plain(field.doc),
        "markdownDescription": field.doc,
    }
    if field.default is not None:
        out["default"] = field.default
    if field.example is not None:
        out["examples"] = [field.example]
    return out


def _value_keywords(field: vocab.Field) -> dict[str, Any]:
    """Type, range, enum and shape of a field's value, by its vocabulary type."""
    if field.type == "string":
        out: dict[str, Any] = {"type": "string"}
        if field.required:
            out |= NOT_BLANK
        if field.name == "expression":
            out |= {
                "maxLength": vocab.MAX_EXPRESSION_LENGTH,
                "pattern": condition_pattern(),
                "patternErrorMessage": CONDITION_MESSAGE,
            }
        return out
    if field.type == "integer":
        # Not `"type": "integer"`: VS Code's engine calls 2.0 a non-integer (it looks for a
        # '.'), while JSON Schema and the rulebook accept it.  A number that is a multiple
        # of 1 means the same everywhere, and still rejects 2.5 and true.
        out = {"type": "number", "multipleOf": 1}
        if field.minimum is not None:
            out["minimum"] = field.minimum
        if field.maximum is not None:
            out["maximum"] = field.maximum
        span = f" from {field.minimum} to {field.maximum}" if "maximum" in out else ""
        out["errorMessage"] = f"{field.name} must be a whole number{span}."
        return out
    if field.type == "enum":
        return {"type": "string", "enum": list(field.enum)}
    if field.type == "id-list":
        # A blank string can never name a node: usable ids are not blank.
        return {"type": "array", "items": {"type": "string"} | NOT_BLANK}
    if field.type == "string-list":
        return {
            "type": "array",
            "minItems": 1,
            "uniqueItems": True,
            "items": {"type": "string"} | NOT_BLANK,
        }
    raise ValueError(f"vocabulary field {field.name!r} has unknown type {field.type!r}")


def field_schema(field: vocab.Field) -> dict[str, Any]:
    """The full schema of one field: documentation, then its value constraints."""
    return _doc_keywords(field) | _value_keywords(field)


# --- nodes ------------------------------------------------------------------


ALWAYS_CHECKED = ("id", "type", "after")
"""Common fields the rulebook checks on every node; the others (title) only on a node
of a known kind, so their value constraints live in the kind's schema."""


def _common_properties() -> dict[str, Any]:
    props = {
        f.name: field_schema(f) if f.name in ALWAYS_CHECKED else _doc_keywords(f)
        for f in vocab.COMMON_FIELDS
    }
    props["id"] |= NOT_BLANK
    props["type"] |= {
        "enumDescriptions": [_plain(vocab.KIND_DOCS[k]) for k in vocab.KINDS],
        "markdownEnumDescriptions": [vocab.KIND_DOCS[k] for k in vocab.KINDS],
    }
    return props


def kind_schema(kind: str) -> dict[str, Any]:
    """What a node of `kind` must satisfy beyond the common fields."""
    fields = tuple(f for f in vocab.fields_for(kind) if f.name not in ALWAYS_CHECKED)
    out: dict[str, Any] = {
        "title": f"{kind} node",
        "description": _plain(vocab.KIND_DOCS[kind]),
        "markdownDescription": vocab.KIND_DOCS[kind],
    }
    if fields:
        out["properties"] = {f.name: field_schema(f) for f in fields}
    required = [f.name for f in vocab.required_payloads(kind)]
    if required:
        out["required"] = required
    if kind == vocab.OUTPUT:
        out["if"] = {"properties": {"deliver": {"const": "channel"}}, "required": ["deliver"]}
        # Only a channel target must contain ':'; with any other deliver it is just a string.
        out["then"] = {
            "required": ["target"],
            "properties": {"target": {
                "pattern": CHANNEL_TARGET_PATTERN,
                "patternErrorMessage": CHANNEL_TARGET_MESSAGE,
            }},
        }
    return out


def _snippet_value(field: vocab.Field, placeholder: int) -> Any:
    """A snippet value: strings become tab stops, other values are inserted as is."""
    value = field.default if field.default is not None else field.example
    if value is None and field.enum:
        value = field.enum[0]
    if isinstance(value, str):
        return f"${{{placeholder}:{value}}}" if value else f"${placeholder}"
    return value


SNIPPET_EXTRA_FIELDS: dict[str, tuple[str, ...]] = {
    vocab.OUTPUT: ("deliver",),
    vocab.NOTE: ("text",),
}
"""Optional fields without a default that a new node of the kind is pointless without."""


def node_snippet(kind: str) -> dict[str, Any]:
    """A VS Code `defaultSnippets` entry for a new node of `kind`.

    The body carries id, type, `after` (for kinds that run), the required payloads,
    every field with a default and SNIPPET_EXTRA_FIELDS, so a new node is valid once
    its tab stops are filled in.
    """
    body: dict[str, Any] = {"id": f"${{1:{kind}}}", "type": kind}
    stop = 2
    if kind in vocab.STEP_KINDS:
        body["after"] = ["$2"]
        stop = 3
    extras = SNIPPET_EXTRA_FIELDS.get(kind, ())
    for field in vocab.KIND_FIELDS[kind]:
        if field.required or field.default is not None or field.name in extras:
            body[field.name] = _snippet_value(field, stop)
            stop += isinstance(body[field.name], str)
    return {
        "label": f"{kind} node",
        "description": _plain(vocab.KIND_DOCS[kind]),
        "markdownDescription": vocab.KIND_DOCS[kind],
        "body": body,
    }


def node_schema() -> dict[str, Any]:
    """A node: common fields, then the kind's own fields via `if`/`then` on `type`.

    A field is checked only on the kinds that define it, as in the rulebook: a
    `retries` on an approval is an unknown field (an editor warning), not a defect.
    Unknown fields are allowed for the same reason.
    """
    return {
        "title": "Node",
        "description": "One node of the design: a trigger, a step (agent, condition, "
        "approval, output) or a note.",
        "markdownDescription": "One node of the design: a `trigger`, a step (`agent`, "
        "`condition`, `approval`, `output`) or a `note`.",
        "type": "object",
        "required": ["id", "type"],
        "properties": _common_properties(),
        "allOf": [
            {
                "if": {"properties": {"type": {"const": kind}}, "required": ["type"]},
                "then": {"$ref": f"#/$defs/{kind}"},
            }
            for kind in vocab.KINDS
        ],
        "defaultSnippets": [node_snippet(kind) for kind in vocab.KINDS],
    }


# --- the design ---------------------------------------------------------------


def design_snippet() -> dict[str, Any]:
    """A VS Code `defaultSnippets` entry for a new, valid design."""
    return {
        "label": "Hermes Workflow design",
        "description": "A trigger and one agent step.",
        "body": {
            "name": "${1:my-workflow}",
            "nodes": [
                {"id": "start", "type": vocab.TRIGGER},
                {"id": "${2:agent}", "type": vocab.AGENT, "after": ["start"],
                 "prompt": "${3:Describe the task}"},
            ],
        },
    }


def build_schema() -> dict[str, Any]:
    """The whole schema as a JSON-ready dict (deterministic key order)."""
    return {
        "$schema": DRAFT,
        "$id": SCHEMA_ID,
        "title": "Hermes Workflow design",
        "description": "A Hermes Workflow design: a name and its nodes. Generated from "
        "hwf_lsp/rules/vocabulary.py by hwf_lsp.generators.design_schema; do not edit by hand. "
        "Unique ids, edges to real nodes, cycles, exactly one trigger and the nodes a "
        "condition reads are checked by the rulebook (hwf check / the language server), "
        "not here.",
        "type": "object",
        "required": ["nodes"],
        "properties": {
            "$schema": {
                "title": "$schema",
                "description": "The schema this file follows (for editors).",
                "type": "string",
            },
            "name": {
                "title": "name",
                "description": "The design's name. The design store checks it "
                f"({vocab.DESIGN_NAME_PATTERN}) because it becomes a file name; the "
                "rulebook does not, so neither does this schema.",
                "markdownDescription": "The design's name. The design store checks it "
                f"(`{vocab.DESIGN_NAME_PATTERN}`) because it becomes a file name; the "
                "rulebook does not, so neither does this schema.",
                "examples": ["hello-world"],
            },
            "nodes": {
                "title": "nodes",
                "description": f"The design's nodes: at least one, at most {vocab.MAX_NODES}, "
                "exactly one of them a trigger.",
                "markdownDescription": f"The design's nodes: at least one, at most "
                f"{vocab.MAX_NODES}, exactly one of them a `trigger`.",
                "type": "array",
                "minItems": 1,
                "maxItems": vocab.MAX_NODES,
                "items": {"$ref": "#/$defs/node"},
            },
        },
        "defaultSnippets": [design_snippet()],
        "$defs": {"node": node_schema()} | {kind: kind_schema(kind) for kind in vocab.KINDS},
    }


def render() -> str:
    """The schema file's exact text."""
    return json_file(build_schema())


if __name__ == "__main__":
    sys.stdout.write(render())
