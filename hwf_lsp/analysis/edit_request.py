"""One canvas edit request applied to a design's text, for a host that holds the text itself.

In VS Code the editor holds the text: the server computes an edit (`design_edits.py`)
and the editor applies it.  The Hermes dashboard tab has no editor, so its route sends
the draft text with the canvas's own edit request (`protocol.ts` `EditRequest`:
`{"edit": "connect", "from", "to"}`, `addNode {kind, after}`, `deleteNode {id}`,
`renameNode {id, newId}`, `setField {id, field, value}`, `removeField {id, field}`) and gets the new text back:
the same minimal edits, computed here, none in JavaScript.

A malformed request is an `EditRequestError` naming the argument; an edit the design
refuses is a `design_edits.DesignEditError` saying why.  Pure: text in, text out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..jsontext.jsontree import parse
from . import design_edits

__all__ = ["EDIT_ARGUMENTS", "EditRequestError", "EditedText", "apply_edits", "edit_text"]


class EditRequestError(ValueError):
    """A request that is not an edit request; `argument` names what is wrong."""

    def __init__(self, argument: str, message: str) -> None:
        super().__init__(message)
        self.argument = argument


@dataclass(frozen=True, slots=True)
class EditedText:
    text: str
    id: str | None
    """The node created or renamed, if any (the canvas selects it)."""


STRING, OPTIONAL, ANY = "a string", "a string or null", "any JSON value"

EDIT_ARGUMENTS: dict[str, tuple[Callable[..., design_edits.DesignEdit],
                                tuple[tuple[str, str], ...]]] = {
    "connect": (design_edits.connect, (("from", STRING), ("to", STRING))),
    "disconnect": (design_edits.disconnect, (("from", STRING), ("to", STRING))),
    "addNode": (design_edits.add_node, (("kind", STRING), ("after", OPTIONAL))),
    "deleteNode": (design_edits.delete_node, (("id", STRING),)),
    "renameNode": (design_edits.rename_node, (("id", STRING), ("newId", STRING))),
    "setField": (design_edits.set_field, (("id", STRING), ("field", STRING), ("value", ANY))),
    "removeField": (design_edits.remove_field, (("id", STRING), ("field", STRING))),
}
"""Each edit of the canvas: the `design_edits` function and its arguments, in order."""


def _argument(request: dict[str, Any], name: str, kind: str) -> Any:
    if kind == OPTIONAL:
        value = request.get(name)
        if value is None or isinstance(value, str):
            return value
    elif name not in request:
        raise EditRequestError(name, f"missing {name!r} ({kind})")
    else:
        value = request[name]
        if kind == ANY or isinstance(value, str):
            return value
    raise EditRequestError(name, f"{name!r} must be {kind}, not {type(value).__name__}")


def apply_edits(text: str, edits: list[tuple[int, int, str]]) -> str:
    """`text` with non-overlapping [start, end) replacements made (any order given)."""
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        text = text[:start] + new + text[end:]
    return text


def edit_text(text: str, request: dict[str, Any], *, known: tuple[str, ...] = ()) -> EditedText:
    """`text` after the canvas edit `request`; `known` are other keys the caller reads
    from the same object (they are not refused as unknown)."""
    kind = request.get("edit")
    if not isinstance(kind, str) or kind not in EDIT_ARGUMENTS:
        raise EditRequestError("edit", f"'edit' must be one of {', '.join(EDIT_ARGUMENTS)}, "
                               f"not {kind!r}")
    compute, arguments = EDIT_ARGUMENTS[kind]
    allowed = {"edit", *known, *(name for name, _ in arguments)}
    unknown = sorted(key for key in request if key not in allowed)
    if unknown:
        raise EditRequestError(unknown[0], f"unknown argument {unknown[0]!r} for {kind}: it "
                               f"takes {', '.join(name for name, _ in arguments)}")
    values = [_argument(request, name, spec) for name, spec in arguments]
    result = compute(parse(text), *values)
    return EditedText(apply_edits(text, result.edits), result.id)
