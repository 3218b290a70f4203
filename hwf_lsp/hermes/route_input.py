"""What a dashboard route reads from a request, read safely (contract 6, "Dashboard routes").

A route is reachable from any page the browser has open, and its body and query come
from whoever sends them, so before any work:

- POST and PUT take `application/json` only: a cross-site form can send `text/plain`
  or a form encoding without a preflight, never JSON (no CSRF through a form);
- a body is capped before it is read: a `Content-Length` over the cap is refused
  unread, and a body without one is read only up to the cap;
- numbers are parsed safely: a query number is at most a few ASCII digits (5,000 digits
  would make `int()` raise), and a body's JSON refuses NaN/Infinity and over-long numbers.

Every refusal is `RouteRefusal` (a 4xx with `{error, argument?}`).
"""

from __future__ import annotations

import json
import re
from typing import Any

from hwf_lsp.rules.strict_json import LONE_SURROGATE

MAX_BODY_BYTES = 8 * 1024 * 1024
"""The largest body read: a step's stored output is capped at 1 MiB
(`json_values.DEFAULT_MAX_OUTPUT_BYTES`), which JSON escapes can make a few times longer;
a design is at most 50 nodes. Anything bigger is not one of ours."""
BAD_REQUEST, NOT_FOUND, CONFLICT, TOO_LARGE, NOT_JSON, UNREADABLE = 400, 404, 409, 413, 415, 422
_QUERY_NUMBER = re.compile(r"[0-9]{1,6}")
_CONTENT_LENGTH = re.compile(r"[0-9]{1,18}")


class RouteRefusal(Exception):
    """A request the route answers with `status` and `{error, argument?}`."""

    def __init__(self, status: int, message: str, argument: str | None = None) -> None:
        super().__init__(message)
        self.status, self.argument = status, argument

    def body(self) -> dict[str, Any]:
        out: dict[str, Any] = {"error": str(self)}
        if self.argument is not None:
            out["argument"] = self.argument
        return out


def query_number(value: str | None) -> int | str | None:
    """A query parameter that should be a whole number: the int when it is a few ASCII
    digits, else the text as given (the tool then says what the number must be)."""
    if value is None or not _QUERY_NUMBER.fullmatch(value):
        return value
    return int(value)


def check_json_content_type(content_type: str | None) -> None:
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media != "application/json":
        raise RouteRefusal(NOT_JSON, f"the body must be sent as application/json, not "
                           f"{media or 'no Content-Type'}", "Content-Type")


def declared_length(content_length: str | None, limit: int = MAX_BODY_BYTES) -> int | None:
    """The body's declared length, refused when it is over `limit` (nothing read yet)."""
    if content_length is None:
        return None
    if not _CONTENT_LENGTH.fullmatch(content_length.strip()):
        raise RouteRefusal(BAD_REQUEST, "Content-Length is not a number", "Content-Length")
    length = int(content_length.strip())
    if length > limit:
        raise RouteRefusal(TOO_LARGE, f"the body is {length:,} bytes, over the limit of "
                           f"{limit:,}", "Content-Length")
    return length


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def json_object(raw: bytes) -> dict[str, Any]:
    """The body as a JSON object; an empty body is `{}`."""
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw, parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise RouteRefusal(BAD_REQUEST, f"the body is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise RouteRefusal(BAD_REQUEST, "the body must be a JSON object")
    return value


def _holds_lone_surrogate(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if LONE_SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def refuse_lone_surrogates(body: dict[str, Any]) -> None:
    """A 400 naming the first argument whose value holds a lone surrogate (`"\\ud83d"`:
    valid JSON, not valid Unicode), for a route whose answer echoes what it was sent."""
    for key, value in body.items():
        if _holds_lone_surrogate(key) or _holds_lone_surrogate(value):
            raise RouteRefusal(BAD_REQUEST, f"{key!r} holds a lone surrogate (half of a "
                               "UTF-16 pair): not valid Unicode", key)


async def read_json_body(request: Any, limit: int = MAX_BODY_BYTES) -> dict[str, Any]:
    """A POST/PUT body: JSON only, at most `limit` bytes, read no further than that."""
    check_json_content_type(request.headers.get("content-type"))
    declared_length(request.headers.get("content-length"), limit)
    chunks: list[bytes] = []
    total = 0
    async for chunk in request.stream():
        total += len(chunk)
        if total > limit:
            raise RouteRefusal(TOO_LARGE, f"the body is over the limit of {limit:,} bytes")
        chunks.append(chunk)
    return json_object(b"".join(chunks))
