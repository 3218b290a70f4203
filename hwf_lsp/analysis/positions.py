"""Offsets (Python string indices) <-> LSP positions (line, character).

Everything else in `analysis` speaks offsets; only this module knows lines and
code units.  LSP counts characters in UTF-16 code units by default (an emoji is
2), and lines end at `\\n`, `\\r\\n` or a lone `\\r`.  Conversions are per
finding, so they must be cheap on a 1 MB one-line document: a bisect over line
starts, then unit counting only inside one line, with a pure-ASCII fast path.
"""

from __future__ import annotations

import re
from bisect import bisect_right

ENCODINGS = ("utf-16", "utf-8", "utf-32")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _units(segment: str, encoding: str) -> int:
    """How many code units of `encoding` `segment` takes."""
    if encoding == "utf-32" or segment.isascii():
        return len(segment)
    if encoding == "utf-8":
        return len(segment.encode("utf-8", "surrogatepass"))
    return len(segment.encode("utf-16-le", "surrogatepass")) // 2


_CHUNK = 4096
"""Long non-ASCII lines keep cumulative unit counts every _CHUNK code points."""


class LineIndex:
    """Line starts of one text, computed once (and unit checkpoints of long lines)."""

    __slots__ = ("text", "line_starts", "_checkpoints")

    def __init__(self, text: str) -> None:
        self.text = text
        if "\r" in text:
            starts = [0]
            starts.extend(m.end() for m in _LINE_BREAK.finditer(text))
        else:
            starts = [0]
            find = text.find
            pos = find("\n")
            while pos >= 0:
                starts.append(pos + 1)
                pos = find("\n", pos + 1)
        self.line_starts: list[int] = starts
        self._checkpoints: dict[tuple[int, str], list[int]] = {}

    @property
    def line_count(self) -> int:
        return len(self.line_starts)

    def line_end(self, line: int) -> int:
        """Offset just past the last character of `line`, before its line break."""
        starts = self.line_starts
        if line + 1 >= len(starts):
            return len(self.text)
        end = starts[line + 1]
        if end >= 2 and self.text[end - 2 : end] == "\r\n":
            return end - 2
        return end - 1

    def _units_before(self, line: int, start: int, offset: int, encoding: str) -> int:
        """Units of text[start:offset] (start = the line's start)."""
        text = self.text
        if offset - start <= _CHUNK or encoding == "utf-32":
            return _units(text[start:offset], encoding)
        marks = self._marks(line, start, encoding)
        k = (offset - start) // _CHUNK
        base = start + k * _CHUNK
        return marks[k] + _units(text[base:offset], encoding)

    def _marks(self, line: int, start: int, encoding: str) -> list[int]:
        """Cumulative units at every _CHUNK code points of a long line, built once."""
        key = (line, encoding)
        marks = self._checkpoints.get(key)
        if marks is None:
            text = self.text
            end = self.line_end(line)
            marks = [0]
            for base in range(start, end - _CHUNK + 1, _CHUNK):
                marks.append(marks[-1] + _units(text[base : base + _CHUNK], encoding))
            self._checkpoints[key] = marks
        return marks

    def position(self, offset: int, encoding: str = "utf-16") -> tuple[int, int]:
        """(line, character) of `offset`; out-of-range offsets are clamped."""
        if offset < 0:
            offset = 0
        elif offset > len(self.text):
            offset = len(self.text)
        line = bisect_right(self.line_starts, offset) - 1
        return line, self._units_before(line, self.line_starts[line], offset, encoding)

    def offset(self, line: int, character: int, encoding: str = "utf-16") -> int:
        """Offset of (line, character); clamped to the line (and the text), never raising.

        A character pointing inside a multi-unit character (half a surrogate pair,
        inside a UTF-8 sequence) lands before that character.
        """
        starts = self.line_starts
        if line < 0:
            return 0
        if line >= len(starts):
            return len(self.text)
        start = starts[line]
        end = self.line_end(line)
        if character <= 0:
            return start
        if encoding != "utf-32" and end - start > _CHUNK and character > _CHUNK:
            marks = self._marks(line, start, encoding)
            k = bisect_right(marks, character) - 1
            start += k * _CHUNK
            character -= marks[k]
        return start + _code_points(self.text[start : min(end, start + character)],
                                    character, encoding)


def _code_points(prefix: str, character: int, encoding: str) -> int:
    """How many code points of `prefix` fit in `character` units of `encoding`."""
    if encoding == "utf-32" or prefix.isascii():
        return len(prefix)
    if encoding == "utf-8":
        data = prefix.encode("utf-8", "surrogatepass")
        cut = min(character, len(data))
        while cut < len(data) and (data[cut] & 0xC0) == 0x80:
            cut -= 1
        return len(data[:cut].decode("utf-8", "surrogatepass"))
    if _SURROGATE.search(prefix):
        return _walk_utf16(prefix, character)
    data = prefix.encode("utf-16-le", "surrogatepass")
    cut = min(2 * character, len(data))
    if cut < len(data) and cut >= 2:
        unit = data[cut] | (data[cut + 1] << 8)
        before = data[cut - 2] | (data[cut - 1] << 8)
        if 0xDC00 <= unit <= 0xDFFF and 0xD800 <= before <= 0xDBFF:
            cut -= 2
    return len(data[:cut].decode("utf-16-le", "surrogatepass"))


def _walk_utf16(prefix: str, character: int) -> int:
    """Code points of `prefix` that fit in `character` UTF-16 units (raw surrogates present)."""
    units = 0
    for count, char in enumerate(prefix):
        units += 2 if ord(char) > 0xFFFF else 1
        if units > character:
            return count
    return len(prefix)
