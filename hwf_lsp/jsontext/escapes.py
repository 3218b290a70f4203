"""The escapes of JSON strings: a body decoded leniently (each bad escape or control
character an issue), and a decoded index mapped back to its offset in the text."""

from __future__ import annotations

import re

from .tree import JsonNode, SyntaxIssue

__all__ = ["LazyPattern", "decode_lenient", "source_offset"]


class LazyPattern:
    """A regex compiled on first use.

    Only text that json.loads rejects (and escaped strings) needs these, so the
    server does not compile them at start-up (import time counts: cold start).
    """

    __slots__ = ("_pattern", "_flags", "_compiled")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._pattern = pattern
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def pattern(self) -> re.Pattern[str]:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self._pattern, self._flags)
        return compiled


_ESCAPE = LazyPattern(r'\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt])|(.?))', re.S)
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n",
                   "r": "\r", "t": "\t"}
_CONTROL = LazyPattern(r"[\x00-\x1f]")


def decode_lenient(raw: str, base: int, issues: list[SyntaxIssue]) -> str:
    """Decode a string body that `scanstring` rejected, noting each problem."""
    for bad in _CONTROL.pattern.finditer(raw):
        issues.append(SyntaxIssue("Invalid control character in string (escape it)",
                                  base + bad.start(), base + bad.end()))
    if "\\" not in raw:
        return raw
    out: list[str] = []
    pos = 0
    pending_high: int | None = None  # index in `out` of a \uD8xx awaiting its pair
    for esc in _ESCAPE.pattern.finditer(raw):
        if esc.start() > pos:
            out.append(raw[pos : esc.start()])
            pending_high = None
        pos = esc.end()
        hex_digits, simple, other = esc.groups()
        if hex_digits is not None:
            code = int(hex_digits, 16)
            if pending_high is not None and 0xDC00 <= code <= 0xDFFF:
                high = ord(out[pending_high])
                out[pending_high] = chr(0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00))
                pending_high = None
                continue
            out.append(chr(code))
            pending_high = len(out) - 1 if 0xD800 <= code <= 0xDBFF else None
            continue
        pending_high = None
        if simple is not None:
            out.append(_SIMPLE_ESCAPES[simple])
        else:
            issues.append(SyntaxIssue("Invalid escape sequence in string",
                                      base + esc.start(), base + esc.end()))
            out.append(other or "")
    out.append(raw[pos:])
    return "".join(out)


def source_offset(text: str, node: JsonNode, index: int) -> int:
    """Offset in `text` of character `index` of a string node's decoded value.

    Escapes make decoded and source indices differ (`\\n` is 2 source characters,
    `\\ud83d\\ude00` is 12 for one character); `index == len(value)` maps to the
    end of the last character.  Clamped, never raising.  A span to the end of a closed
    string ends at its closing quote: no walk through a megabyte of `\\u0000` (1.3 s).
    """
    body_start = node.start + 1
    body_end = node.end - 1 if node.closed else node.end
    if index <= 0:
        return body_start
    if node.closed and isinstance(node.value, str) and index >= len(node.value):
        return body_end
    raw = text[body_start:body_end]
    if "\\" not in raw:
        return body_start + min(index, len(raw))
    decoded = 0
    pos = 0
    escape = _ESCAPE.pattern
    while pos < len(raw) and decoded < index:
        if raw[pos] != "\\":
            backslash = raw.find("\\", pos)
            if backslash < 0:
                backslash = len(raw)
            take = min(backslash - pos, index - decoded)
            pos += take
            decoded += take
            continue
        esc = escape.match(raw, pos)
        hex_digits = esc.group(1)
        pos = esc.end()
        if hex_digits is not None and 0xD800 <= int(hex_digits, 16) <= 0xDBFF:
            pair = escape.match(raw, pos)
            if pair is not None and pair.group(1) is not None and \
                    0xDC00 <= int(pair.group(1), 16) <= 0xDFFF:
                pos = pair.end()  # one decoded character for the surrogate pair
        decoded += 1
    return body_start + pos
