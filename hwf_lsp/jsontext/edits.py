"""Minimal text edits of JSON that keep the text's own formatting.

An edit touches only the member, item or object it is about: every other byte of the
text stays as it is.  Inserted text copies the separators the container already uses
(the text between two of its members or items, the text after its opening brace), so
tabs, 4-space indents, CRLF line breaks and one-line objects are followed without
being detected.  Offsets are Python string indices into valid JSON text.
"""

from __future__ import annotations

import json
from typing import Any

from .jsontree import JsonNode

__all__ = ["Edit", "as_json", "colon_of", "insert_item", "insert_member", "remove_entries",
           "render_like", "replace_value"]

Edit = tuple[int, int, str]
"""Replace text[start:end] with the string; edits of one change never overlap."""

_LINE_BREAKS = ("\n", "\r")


def as_json(value: Any, colon: str = ": ") -> str:
    """One-line JSON of a value, non-ASCII text kept as it is (never NaN); nested members
    and items spaced as `colon` is (a compact file's `:` gives `,` and `:`)."""
    spaced = colon.endswith(" ") and not any(b in colon for b in _LINE_BREAKS)
    separators = (", ", ": ") if spaced else (",", ":")
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=separators)


def _separator(text: str, container: JsonNode, entries: list[Any], first_start: int) -> str:
    """The text between two entries (members or items) as this container has it; with
    fewer than two, a comma then what follows its opening bracket when that breaks the
    line (an entry per line), else ", " (just "," where the colons have no space)."""
    if len(entries) >= 2:
        before, last = entries[-2], entries[-1]
        return text[before.end:last.start]
    opening = text[container.start + 1:first_start] if entries else ""
    if any(b in opening for b in _LINE_BREAKS):
        return "," + opening
    owner = container
    while owner is not None and owner.kind != "object":
        owner = owner.parent
    spaced = owner is None or colon_of(text, owner).endswith(" ")
    return ", " if spaced else ","


def colon_of(text: str, obj: JsonNode) -> str:
    """The text between a key and its value in this object (": " when it has none)."""
    for member in obj.members or ():
        if member.value is not None:
            return text[member.key_end:member.value.start]
    return ": "


def insert_item(text: str, array: JsonNode, item_json: str, after: int | None = None) -> Edit:
    """Add an item to `array` after its item `after` (default: the last one)."""
    items = array.items or []
    if not items:
        return array.start + 1, array.start + 1, item_json
    at = items[-1 if after is None else after].end
    return at, at, _separator(text, array, items, items[0].start) + item_json


def insert_member(text: str, obj: JsonNode, key: str, value_json: str) -> Edit:
    """Add `"key": value` as the last member of `obj`."""
    members = obj.members or []
    pair = as_json(key) + colon_of(text, obj) + value_json
    if not members:
        return obj.start + 1, obj.start + 1, pair
    last = members[-1]
    return last.end, last.end, _separator(text, obj, members, members[0].start) + pair


def replace_value(value: JsonNode, value_json: str) -> Edit:
    return value.start, value.end, value_json


def remove_entries(container: JsonNode, doomed: set[int]) -> list[Edit]:
    """Edits deleting the members or items at the indices `doomed` of `container`, each
    with one separator, so the rest stays valid JSON as it was written.

    A run of doomed entries followed by a kept one goes up to that one's start; a run at
    the end goes from the end of the kept entry before it; all of them: everything
    between the brackets (`[]`, `{}`)."""
    entries: list[Any] = (container.members if container.kind == "object"
                          else container.items) or []
    count = len(entries)
    if doomed and all(index in doomed for index in range(count)):
        return [(container.start + 1, container.end - 1, "")]
    edits: list[Edit] = []
    index = 0
    while index < count:
        if index not in doomed:
            index += 1
            continue
        first = index
        while index + 1 < count and index + 1 in doomed:
            index += 1
        if index + 1 < count:
            edits.append((entries[first].start, entries[index + 1].start, ""))
        else:
            edits.append((entries[first - 1].end, entries[index].end, ""))
        index += 1
    return edits


def render_like(text: str, template: JsonNode | None, pairs: list[tuple[str, str]]) -> str:
    """An object of `pairs` (key, value JSON) laid out as the object `template` is: the
    same text after `{`, between members, around colons and before `}` (one line stays
    one line, an indented one keeps its indent)."""
    members = template.members if template is not None else None
    if not members:
        return "{" + ", ".join(as_json(k) + ": " + v for k, v in pairs) + "}"
    opening = text[template.start + 1:members[0].start]
    between = _separator(text, template, members, members[0].start)
    closing = text[members[-1].end:template.end - 1]
    colon = colon_of(text, template)
    return "{" + opening + between.join(as_json(k) + colon + v for k, v in pairs) \
        + closing + "}"
