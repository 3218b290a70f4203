"""A new node's id and starting values: one scheme for every way a node is added.

The canvas's palette (`design_edits.add_node`, also the Hermes tab's `addNode`) and
the text completion's node and field templates (`completion_items`) both ask here, so a
node gets the same id (`agent1`, `agent2`…) and the same values whichever way it came.
The author's own words (a prompt, a question, a note's text) start as empty strings,
never as prose the design would then carry as real; elsewhere the values are valid ones
the author most likely means (an enum's default, the parent above).
"""

from __future__ import annotations

from typing import Any

from ..rules.vocabulary import AGENT, NOTE, TRIGGER, Field, field_named
from .design import Design

__all__ = ["body_fields", "new_node_id", "starting_value"]

_BODIES: dict[str, tuple[str, ...]] = {
    TRIGGER: (),
    AGENT: ("prompt",),
    "condition": ("expression",),
    "approval": ("question",),
    "output": ("deliver",),
    NOTE: ("text",),
}
"""The fields a new node of a kind is written with (its required payload, or its main one)."""


def new_node_id(design: Design, kind: str) -> str:
    """The first free `<kind><n>` from 1 (`agent1`, then `agent2`…); a trigger is
    `trigger` while no node has that id (a design has one trigger, as a rule)."""
    taken = {info.data.get("id") for info in design.infos}
    if kind == TRIGGER and TRIGGER not in taken:
        return TRIGGER
    n = 1
    while f"{kind}{n}" in taken:
        n += 1
    return f"{kind}{n}"


def body_fields(kind: str) -> list[Field]:
    """The fields besides `id`, `type` and `after` a new `kind` node is written with."""
    return [field_named(kind, name) for name in _BODIES[kind]]


def starting_value(field: Field, parent: str | None, upstream: str | None) -> Any:
    """`field`'s value in a node just written: `parent` is the node it most likely runs
    after, `upstream` the step whose output a condition most likely reads (`out.<id>.`,
    for the author to finish)."""
    if field.type == "enum":
        return field.default if field.default is not None else field.enum[0]
    if field.type == "integer":
        return field.default if field.default is not None else field.example
    if field.type == "id-list":
        return [parent] if parent else []
    if field.type == "string-list":
        return list(field.default or field.example or [])
    if field.name == "expression" and upstream:
        return f"out.{upstream}."
    return ""
