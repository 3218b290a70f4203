"""Conditions: `out.<node>.<path> <op> <literal>`, parsed by a small scanner, never eval'd.

Grammar (whitespace is allowed around the operator and at both ends):

    condition := "out" "." NAME ("." NAME){1,MAX_PATH_SEGMENTS} OP LITERAL
    NAME      := [A-Za-z0-9_-]+
    OP        := == | != | <= | >= | < | >
    LITERAL   := JSON number | JSON double-quoted string | true | false | null

Limitation: node ids and keys are reachable only when they consist of letters,
digits, `_` and `-` (no spaces, dots or other characters).  A path segment made of
digits without a leading zero (`0`, `12`) is kept as an int: it indexes a list, and
at evaluation it also matches an object key spelled the same way (`"0"`).

The scanner only moves forward and the text is capped at MAX_EXPRESSION_LENGTH
before any scanning, so parsing time is bounded on any input.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from .vocabulary import CONDITION_OPERATORS, MAX_EXPRESSION_LENGTH, MAX_PATH_SEGMENTS

# Token patterns, shared with the editor's completion.
NAME_PATTERN = r"[A-Za-z0-9_-]+"
NAME_RE = re.compile(NAME_PATTERN)
"""A node id or one path segment."""
INDEX_SEGMENT_RE = re.compile(r"0|[1-9][0-9]*")
"""A segment that is a list index (fullmatch)."""
PREFIX = "out."
OPERATOR_RE = re.compile("|".join(re.escape(op) for op in CONDITION_OPERATORS))
NUMBER_RE = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
STRING_RE = re.compile(r'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"')
KEYWORD_RE = re.compile(r"(true|false|null)(?![A-Za-z0-9_])")
WORD_RE = re.compile(r"[^\s=!<>]+")
"""A run of non-space characters, to span the offending token in an error."""
_SPACE_RE = re.compile(r"\s*")
_ESCAPE_RE = re.compile(r'\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})')
_KEYWORDS = {"true": True, "false": False, "null": None}
LITERAL_HELP = "a JSON number, a double-quoted string, true, false or null"
OPERATOR_HELP = " ".join(("==", "!=", "<", "<=", ">", ">="))


@dataclass(frozen=True, slots=True)
class Condition:
    """A parsed condition, with [start, end) offsets of each part in the source text."""

    node: str
    path: tuple[str | int, ...]
    op: str
    literal: Any
    node_span: tuple[int, int]
    path_span: tuple[int, int]
    op_span: tuple[int, int]
    literal_span: tuple[int, int]


class ConditionError(ValueError):
    """A condition that does not follow the grammar; `start`/`end` locate the problem."""

    def __init__(self, msg: str, start: int, end: int) -> None:
        super().__init__(msg)
        self.msg = msg
        self.start = start
        self.end = end

    def __repr__(self) -> str:
        return f"ConditionError({self.msg!r}, {self.start}, {self.end})"


def _token_end(text: str, pos: int) -> int:
    """End of the token at `pos`, at least pos + 1 when there is a character there."""
    match = WORD_RE.match(text, pos)
    if match and match.end() > pos:
        return match.end()
    return min(pos + 1, len(text))


def _skip_space(text: str, pos: int) -> int:
    return _SPACE_RE.match(text, pos).end()


def _show_token(text: str, start: int, end: int) -> str:
    token = text[start:end]
    return token if len(token) <= 30 else token[:30] + "…"


def _reject_bad_char(text: str, pos: int) -> None:
    """A character that can neither continue a name nor start an operator is the error."""
    if pos < len(text) and not text[pos].isspace() and not OPERATOR_RE.match(text, pos):
        if text[pos] not in "=.":
            raise ConditionError(
                f"'{text[pos]}' cannot appear in a node id or path "
                "(letters, digits, _ and - only)", pos, pos + 1,
            )


def parse_condition(text: str) -> Condition:
    """Parse `text`; raises ConditionError (only) with the offending span."""
    if not isinstance(text, str):
        raise ConditionError("a condition must be a string", 0, 0)
    if len(text) > MAX_EXPRESSION_LENGTH:
        raise ConditionError(
            f"condition is {len(text)} characters long; at most {MAX_EXPRESSION_LENGTH}",
            0, len(text),
        )
    pos = _skip_space(text, 0)
    if pos == len(text):
        raise ConditionError(
            "empty condition; expected out.<node>.<path> <op> <literal>", 0, len(text)
        )
    if not text.startswith(PREFIX, pos):
        end = _token_end(text, pos)
        raise ConditionError(
            f"a condition starts with out.<node>.<path>, not "
            f"'{_show_token(text, pos, end)}'", pos, end,
        )
    pos += len(PREFIX)
    node_match = NAME_RE.match(text, pos)
    if node_match is None:
        _reject_bad_char(text, pos)
        at_char = pos < len(text) and not text[pos].isspace()
        raise ConditionError(
            "expected a node id after 'out.' (letters, digits, _ and - only)",
            *((pos, pos + 1) if at_char else (pos - len(PREFIX), pos)),
        )
    node = node_match.group()
    node_span = node_match.span()
    pos = node_match.end()
    path: list[str | int] = []
    path_start = pos + 1
    while pos < len(text) and text[pos] == ".":
        seg_match = NAME_RE.match(text, pos + 1)
        if seg_match is None:
            _reject_bad_char(text, pos + 1)
            raise ConditionError(
                "expected a key or list index after '.' (letters, digits, _ and - only)",
                pos, pos + 1,
            )
        if len(path) == MAX_PATH_SEGMENTS:
            raise ConditionError(
                f"path has more than {MAX_PATH_SEGMENTS} segments", seg_match.start(),
                seg_match.end(),
            )
        segment = seg_match.group()
        path.append(int(segment) if INDEX_SEGMENT_RE.fullmatch(segment) else segment)
        pos = seg_match.end()
    _reject_bad_char(text, pos)
    if not path:
        raise ConditionError(
            f"expected .<path> after the node id: out.{node}.<key> <op> <literal>", *node_span
        )
    path_span = (path_start, pos)
    pos = _skip_space(text, pos)
    op_match = OPERATOR_RE.match(text, pos)
    if op_match is None:
        if pos == len(text):
            raise ConditionError(
                f"expected an operator ({OPERATOR_HELP}) after the path", path_span[0], pos
            )
        end = _token_end(text, pos)
        hint = " (use == to compare)" if text[pos] == "=" else ""
        raise ConditionError(
            f"expected an operator ({OPERATOR_HELP}), got "
            f"'{_show_token(text, pos, end)}'{hint}", pos, end,
        )
    op = op_match.group()
    op_span = op_match.span()
    pos = _skip_space(text, op_match.end())
    literal, literal_span = _parse_literal(text, pos, op_span)
    pos = _skip_space(text, literal_span[1])
    if pos < len(text):
        end = len(text.rstrip())
        raise ConditionError(
            f"unexpected text after the value: '{_show_token(text, pos, end)}'", pos, end
        )
    return Condition(node, tuple(path), op, literal, node_span, path_span, op_span, literal_span)


def _parse_literal(text: str, pos: int, op_span: tuple[int, int]) -> tuple[Any, tuple[int, int]]:
    if pos == len(text):
        raise ConditionError(f"expected a value after the operator: {LITERAL_HELP}", *op_span)
    char = text[pos]
    if char == '"':
        match = STRING_RE.match(text, pos)
        if match is None:
            raise _string_error(text, pos)
        return json.loads(match.group()), match.span()
    match = KEYWORD_RE.match(text, pos)
    if match is not None:
        return _KEYWORDS[match.group()], match.span()
    match = NUMBER_RE.match(text, pos)
    glued = match is not None and match.end() < len(text) and (
        text[match.end()].isalnum() or text[match.end()] in "._"
    )
    if match is not None and not glued:
        try:
            value = json.loads(match.group())
        except ValueError:
            raise ConditionError("number has too many digits", *match.span()) from None
        if isinstance(value, float) and not math.isfinite(value):
            raise ConditionError("number is out of range", *match.span())
        return value, match.span()
    end = _token_end(text, pos)
    token = _show_token(text, pos, end)
    if char == "'":
        msg = "strings use double quotes, not single quotes"
    elif char in "=!<>":
        msg = f"unexpected '{char}' after the operator; operators are {OPERATOR_HELP}"
        end = pos + 1
    elif token.lower() in _KEYWORDS:
        msg = f"'{token}' must be lowercase: {token.lower()}"
    else:
        msg = f"expected {LITERAL_HELP}, got '{token}' (quote text: \"...\")"
    raise ConditionError(msg, pos, end)


def _string_error(text: str, start: int) -> ConditionError:
    """Locate why a string starting at `start` is not a JSON string."""
    pos = start + 1
    while pos < len(text):
        char = text[pos]
        if char == '"':
            break  # cannot happen: the whole string would have matched STRING_RE
        if char == "\\":
            escape = _ESCAPE_RE.match(text, pos)
            if escape is None:
                return ConditionError(
                    "invalid escape in string", pos, min(pos + 2, len(text))
                )
            pos = escape.end()
            continue
        if ord(char) < 0x20:
            return ConditionError("control character in string (escape it)", pos, pos + 1)
        pos += 1
    return ConditionError("unterminated string: missing closing \"", start, len(text))


# --- evaluation -----------------------------------------------------------


def _walk(value: Any, path: tuple[str | int, ...] | list[str | int]) -> tuple[bool, Any, str]:
    """Follow `path` into `value`: (found, value, why-not)."""
    current = value
    for depth, segment in enumerate(path):
        where = ".".join(str(s) for s in path[:depth]) or "<output>"
        if isinstance(current, dict):
            key = segment if isinstance(segment, str) else str(segment)
            if key not in current:
                return False, None, f"{where} has no key '{key}'"
            current = current[key]
        elif isinstance(current, list):
            if not isinstance(segment, int) or isinstance(segment, bool):
                return False, None, f"{where} is a list; '{segment}' is not an index"
            if segment >= len(current):
                return False, None, (
                    f"{where} has {len(current)} items; index {segment} is out of range"
                )
            current = current[segment]
        else:
            return False, None, f"{where} is {_kind(current)}, not an object or list"
    return True, current, ""


def resolve_path(value: Any, path: tuple[str | int, ...] | list[str | int]) -> tuple[bool, Any]:
    """(found, value) at `path` inside `value`; never raises."""
    found, result, _ = _walk(value, path)
    return found, result


def _kind(value: Any) -> str:
    """The JSON kind of a value, for type-aware comparison and messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def json_equal(left: Any, right: Any) -> bool:
    """JSON equality for a scalar literal: True never equals 1, 1 equals 1.0."""
    if _kind(left) != _kind(right):
        return False
    if isinstance(left, list | dict):
        return False  # literals are scalars; a container never equals one
    return bool(left == right)


_ORDERING = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
}


def text_read(cond: Condition, outputs: dict) -> str | None:
    """Why `cond` reads a field of text, else None: its path goes on inside a value that
    is a string (`out.review.score` on a review stored as text).  Almost always a format
    mismatch (the model answered JSON as text, not as `{"structured": …}`), so a run
    warns about it (docs/conditions.md) instead of reading false in silence."""
    if not isinstance(outputs, dict) or cond.node not in outputs:
        return None
    current = outputs[cond.node]
    for depth, segment in enumerate(cond.path):
        if isinstance(current, str):
            where = ".".join(["out", cond.node, *(str(s) for s in cond.path[:depth])])
            return f"{where} is text, not JSON" + (
                " (it holds JSON as text: an agent sends data as {\"structured\": …})"
                if _holds_json(current) else "")
        found, current, _why = _walk(current, (segment,))
        if not found:
            return None
    return None


def _holds_json(text: str) -> bool:
    """Whether `text` is a JSON object or list (what `structured` was meant to carry)."""
    stripped = text.strip()
    if stripped[:1] not in ("{", "["):
        return False
    try:
        return isinstance(json.loads(stripped), dict | list)
    except (ValueError, RecursionError):
        return False


def evaluate(cond: Condition, outputs: dict) -> tuple[bool, str | None]:
    """(result, reason): the reason says why it is false when the value was unusable.

    An unresolvable path is false (never an error); ordering compares number with
    number or string with string only.  Never raises.
    """
    try:
        return _evaluate(cond, outputs)
    except Exception as error:  # noqa: BLE001 - a run must record, not crash
        return False, f"cannot evaluate: {type(error).__name__}"


def _evaluate(cond: Condition, outputs: dict) -> tuple[bool, str | None]:
    if not isinstance(outputs, dict) or cond.node not in outputs:
        return False, f"node '{cond.node}' has no output"
    found, value, why = _walk(outputs[cond.node], cond.path)
    if not found:
        return False, f"out.{cond.node}: {why}"
    literal = cond.literal
    if cond.op == "==":
        return json_equal(value, literal), None
    if cond.op == "!=":
        return not json_equal(value, literal), None
    left, right = _kind(value), _kind(literal)
    if left == right and left in ("a number", "a string"):
        if isinstance(value, float) and math.isnan(value):
            return False, "cannot compare NaN"
        return bool(_ORDERING[cond.op](value, literal)), None
    return False, f"cannot compare {left} with {right} using {cond.op}"
