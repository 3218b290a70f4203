"""Semantic tokens inside condition strings: `out`, the node id, each path segment, the
operator and the literal, as source offsets.

A condition that does not parse still gets the tokens of the part that does
(`out.<node>.<path>`); the rest stays a plain string.  Only `expression` values of
nodes are looked at, so the cost is the design's conditions, not its size.
"""

from __future__ import annotations

import re

from ..jsontext.jsontree import ParsedDocument, source_offset
from ..rules.conditions import NAME_PATTERN, ConditionError, parse_condition
from .design import Design, design_of

__all__ = ["TOKEN_TYPES", "condition_tokens"]

TOKEN_TYPES = ("keyword", "variable", "property", "operator", "string", "number")
"""The legend: index = the type number a token carries."""
KEYWORD, VARIABLE, PROPERTY, OPERATOR, STRING, NUMBER = range(len(TOKEN_TYPES))
_PREFIX = re.compile(r"\s*(out)\.(" + NAME_PATTERN + r")((?:\." + NAME_PATTERN + r")*)")


def _decoded_tokens(expression: str) -> list[tuple[int, int, int]]:
    """(start, end, type) in the decoded expression."""
    match = _PREFIX.match(expression)
    if match is None:
        return []
    out = [(match.start(1), match.end(1), KEYWORD), (match.start(2), match.end(2), VARIABLE)]
    pos = match.start(3)
    for segment in match.group(3).split(".")[1:]:
        out.append((pos + 1, pos + 1 + len(segment), PROPERTY))
        pos += 1 + len(segment)
    try:
        condition = parse_condition(expression)
    except ConditionError:
        return out
    out.append((*condition.op_span, OPERATOR))
    literal = expression[slice(*condition.literal_span)]
    kind = STRING if literal.startswith('"') else NUMBER if literal[:1] in "-0123456789" \
        else KEYWORD
    out.append((*condition.literal_span, kind))
    return out


def condition_tokens(doc: ParsedDocument, start: int = 0, end: int | None = None,
                     design: Design | None = None) -> list[tuple[int, int, int]]:
    """(start, end, type) of every token in the conditions overlapping [start, end), in
    source order."""
    end = len(doc.text) if end is None else end
    found = []
    for info in (design or design_of(doc)).infos:
        member = info.member("expression")
        value = member.value if member is not None else None
        if value is None or value.kind != "string" or not isinstance(value.value, str) \
                or value.end < start or value.start > end:
            continue
        for s, e, kind in _decoded_tokens(value.value):
            found.append((source_offset(doc.text, value, s), source_offset(doc.text, value, e),
                          kind))
    found.sort()
    return [t for t in found if t[1] > start and t[0] < end]
