"""Generate docs/design-format.md, the reference of the design format, from the vocabulary.

Like the JSON Schema (schema_gen.py), the doc is generated, never hand-edited, so it
cannot drift from what the rulebook, completion and hover read:

    python -m hwf_lsp.generators.design_format_doc > docs/design-format.md

and a test checks that the committed file equals this module's output. Pure: no
I/O except `main` printing.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from hwf_lsp.rules import vocabulary as vocab

DOC_PATH = "docs/design-format.md"
"""Where the generated doc is committed, relative to the repository root."""

MINIMAL_DESIGN: dict[str, Any] = {
    "name": "hello-world",
    "nodes": [
        {"id": "start", "type": vocab.TRIGGER},
        {"id": "greet", "type": vocab.AGENT, "after": ["start"],
         "prompt": "Write a one-line friendly greeting for the team."},
        {"id": "show", "type": vocab.OUTPUT, "after": ["greet"], "deliver": "notification"},
    ],
}
"""The smallest useful design: trigger → agent → notification (a test validates it)."""

EXTRA_LIMITS: dict[str, str] = {
    "expression": f"at most {vocab.MAX_EXPRESSION_LENGTH} characters; "
    f"at most {vocab.MAX_PATH_SEGMENTS} path segments after `out.<node>`",
}
"""Limits the rulebook applies to one field by name, beyond its type's range or enum."""


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell: `|` escaped, and `<` outside code spans, so
    `out.<node>` is not taken for an HTML tag."""
    pieces = text.replace("|", "\\|").replace("\n", " ").split("`")
    return "`".join(p if i % 2 else p.replace("<", "&lt;") for i, p in enumerate(pieces))


def _reading_order(op: str) -> tuple[int, int]:
    """== != < <= > >=: the order people list them (the vocabulary keeps longest first)."""
    return "=!<>".index(op[0]), len(op)


def _code(value: Any) -> str:
    return f"`{json.dumps(value, ensure_ascii=False)}`"


def design_json(design: dict[str, Any]) -> str:
    """A design as the examples write it: one node a line."""
    nodes = ",\n".join(f"    {json.dumps(n, ensure_ascii=False)}" for n in design["nodes"])
    return f'{{\n  "name": {json.dumps(design["name"])},\n  "nodes": [\n{nodes}\n  ]\n}}'


def value_type(field: vocab.Field) -> str:
    """What a field holds, in words."""
    if field.type == "string":
        return "non-blank string" if field.required else "string"
    if field.type == "integer":
        return "whole number"
    if field.type == "enum":
        return "one of " + ", ".join(_code(v) for v in field.enum)
    if field.type == "id-list":
        return "list of node ids"
    if field.type == "string-list":
        return "non-empty list of distinct non-blank strings"
    raise ValueError(f"vocabulary field {field.name!r} has unknown type {field.type!r}")


def limits(field: vocab.Field) -> str:
    """The range or size limits of a field's value, or an em dash."""
    parts = []
    if field.minimum is not None and field.maximum is not None:
        parts.append(f"{field.minimum}–{field.maximum}")
    if field.name in EXTRA_LIMITS:
        parts.append(EXTRA_LIMITS[field.name])
    return "; ".join(parts) or "—"


def field_table(fields: tuple[vocab.Field, ...]) -> list[str]:
    rows = ["| field | holds | required | default | limits | meaning |",
            "| --- | --- | --- | --- | --- | --- |"]
    for f in fields:
        default = "—" if f.default is None else _code(f.default)
        rows.append(f"| `{f.name}` | {_cell(value_type(f))} | {'yes' if f.required else 'no'} "
                    f"| {default} | {_cell(limits(f))} | {_cell(f.doc)} |")
    return rows


def kind_section(kind: str) -> list[str]:
    lines = [f"### `{kind}`", "", vocab.KIND_DOCS[kind], ""]
    own = vocab.KIND_FIELDS[kind]
    if own:
        lines += field_table(own)
    else:
        lines.append("No fields beyond the common ones.")
    return lines + [""]


def rules_table(title: str, rules: dict[str, str]) -> list[str]:
    rows = [f"| {title} | what it checks |", "| --- | --- |"]
    return rows + [f"| `{code}` | {_cell(text)} |" for code, text in rules.items()]


def render() -> str:
    """The doc's exact text, ending in one newline."""
    lines = [
        "# The design format",
        "",
        "<!-- Generated from hwf_lsp/rules/vocabulary.py by "
        "`python -m hwf_lsp.generators.design_format_doc > docs/design-format.md`; do not edit. -->",
        "",
        "A design is one JSON object: a `name` and a list of `nodes`. Each node has an `id`, "
        "a `type` (its kind) and the fields of that kind; `after` lists the nodes it runs "
        "after. The files are `*.hwf.json`, or `workflow-designs/<name>.json` in "
        "`$HERMES_HOME`. The smallest useful design:",
        "",
        "```json",
        design_json(MINIMAL_DESIGN),
        "```",
        "",
        "`hwf check FILE` gives the verdict the editor shows; the JSON Schema in "
        "`schema/` (generated from the same vocabulary) serves tools that only speak JSON "
        "Schema.",
        "",
        "## The design",
        "",
        "| field | holds | required | limits | meaning |",
        "| --- | --- | --- | --- | --- |",
        "| `name` | string | no | to run or be stored: "
        f"`{_cell(vocab.DESIGN_NAME_PATTERN)}` | The design's name; runs are filed under it "
        "(a file without one runs under its file name). |",
        f"| `nodes` | list of nodes | yes | 1–{vocab.MAX_NODES} nodes, exactly one "
        "`trigger` | The design's nodes, in any order: `after` gives the order. |",
        "",
        "## Every node",
        "",
        "Every node may carry these fields, whatever its kind. A field its kind does not "
        "define (a typo, or another kind's field) is a warning, `unknown-field`, never an "
        "error.",
        "",
        *field_table(vocab.COMMON_FIELDS),
        "",
        "## The kinds",
        "",
        "The kinds that run are steps of a run, in `after` order: "
        + ", ".join(f"`{k}`" for k in vocab.STEP_KINDS)
        + ". A `trigger` starts the run and a `note` never runs.",
        "",
    ]
    for kind in vocab.KINDS:
        lines += kind_section(kind)
    lines += [
        "## Conditions",
        "",
        "An `expression` reads one value from an earlier step's output and compares it "
        "with one literal: `out.<node>.<path> <op> <literal>`, with `<op>` one of "
        + " ".join(f"`{op}`" for op in sorted(vocab.CONDITION_OPERATORS, key=_reading_order))
        + ". The grammar and how it evaluates: docs/conditions.md.",
        "",
        "## What `hwf check` and the editor report",
        "",
        "Each finding carries one of these codes (`error[code]` or `warning[code]`). The "
        "rulebook's findings are errors. Beyond the rulebook, invalid JSON is an error and "
        "the rest are warnings.",
        "",
        *rules_table("rulebook error", vocab.RULES),
        "",
        *rules_table("beyond the rulebook", vocab.EDITOR_RULES),
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(render())
