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

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_SURROGATE = re.compile("[\ud800-\udfff]")


def units(segment: str, encoding: str) -> int:
    """How many code units of `encoding` `segment` takes."""
    if encoding == "utf-32" or segment.isascii():
        return len(segment)
    if encoding == "utf-8":
        return len(segment.encode("utf-8", "surrogatepass"))
    return len(segment.encode("utf-16-le", "surrogatepass")) // 2


_CHUNK = 4096
"""Long non-ASCII lines keep cumulative unit counts every _CHUNK code points."""


_COUNT_BUDGET = 4
"""Without a line table, lookups count line breaks in C from the previous lookup; once
they have counted this many times the text's length, the table is built instead."""
_SAMPLE = 65_536
_LONG_LINES = 256
"""When the first _SAMPLE characters have lines this long on average, the table is built
at once: it costs one `find` (memchr) per line, while counting reads every character
(a 5 MB design of long prompts: about 1 ms against 8 ms)."""


class LineIndex:
    """Line starts of one text (table built on demand) and unit checkpoints of long lines.

    A check usually converts only a few findings, in source order, so lookups count
    line breaks in C (`str.count` from the previous lookup, `rfind`) instead of
    building a table of every line start: on a 50 000-line document that saves a few
    milliseconds a keystroke.  Lookups that jump around build the table after all, and
    a text of long lines gets it at once (_LONG_LINES).
    """

    __slots__ = ("text", "_starts", "_checkpoints", "_budget", "_at", "_newline_only")

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts: list[int] | None = None
        self._checkpoints: dict[tuple[int, str], list[int]] = {}
        sample = min(len(text), _SAMPLE)
        short_lines = text.count("\n", 0, sample) * _LONG_LINES >= sample
        self._budget = _COUNT_BUDGET * len(text) if short_lines else 0
        self._at = (0, 0)
        """(offset, its line) of the last counted lookup: the next one counts from there."""
        self._newline_only = "\r" not in text or text.count("\r") == text.count("\r\n")
        """Every line ends with a \\n (no lone \\r): a line is a count of \\n."""

    @property
    def line_starts(self) -> list[int]:
        """Offset of the first character of every line."""
        starts = self._starts
        if starts is None:
            starts = self._starts = _line_starts(self.text)
        return starts

    def _line_of(self, offset: int) -> tuple[int, int]:
        """(line, offset of its first character) for an in-range offset."""
        if self._starts is None and self._newline_only and self._budget > 0:
            text = self.text
            at, line = self._at
            if offset >= at:
                line += text.count("\n", at, offset)
                self._budget -= offset - at
            else:
                line -= text.count("\n", offset, at)
                self._budget -= at - offset
            self._at = (offset, line)
            start = text.rfind("\n", 0, offset) + 1
            self._budget -= offset - start
            return line, start
        starts = self.line_starts
        line = bisect_right(starts, offset) - 1
        return line, starts[line]

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
            return units(text[start:offset], encoding)
        marks = self._marks(line, start, encoding)
        k = (offset - start) // _CHUNK
        base = start + k * _CHUNK
        return marks[k] + units(text[base:offset], encoding)

    def _marks(self, line: int, start: int, encoding: str) -> list[int]:
        """Cumulative units at every _CHUNK code points of a long line, built once."""
        key = (line, encoding)
        marks = self._checkpoints.get(key)
        if marks is None:
            text = self.text
            end = self.line_end(line)
            marks = [0]
            for base in range(start, end - _CHUNK + 1, _CHUNK):
                marks.append(marks[-1] + units(text[base : base + _CHUNK], encoding))
            self._checkpoints[key] = marks
        return marks

    def position(self, offset: int, encoding: str = "utf-16") -> tuple[int, int]:
        """(line, character) of `offset`; out-of-range offsets are clamped."""
        if offset < 0:
            offset = 0
        elif offset > len(self.text):
            offset = len(self.text)
        line, start = self._line_of(offset)
        return line, self._units_before(line, start, offset, encoding)

    def _counted_line(self, line: int) -> tuple[int, int] | None:
        """(start, end) of `line` counted in C from the last lookup, without the table
        (a request's one position on a fresh 1 MB version: the table is ~10 ms of
        `find`s); None past the last line.  Only for newline-only texts with budget."""
        text = self.text
        at, at_line = self._at
        if line < at_line:
            at, at_line = 0, 0
        pos, need = at, line - at_line
        if need == 0:
            start = text.rfind("\n", 0, pos) + 1
        else:  # just past the need-th "\n" from pos: skip whole chunks, then find
            for step in (65_536, 1024):
                while pos < len(text) and (ahead := text.count("\n", pos, pos + step)) < need:
                    need -= ahead
                    pos += step
            if pos >= len(text):
                return None
            for _ in range(need):
                pos = text.find("\n", pos) + 1
            start = pos
        self._budget -= abs(pos - at) + 1024
        self._at = (start, line)
        end = text.find("\n", start)
        if end < 0:
            end = len(text)
        elif end > start and text[end - 1] == "\r":
            end -= 1
        return start, end

    def offset(self, line: int, character: int, encoding: str = "utf-16") -> int:
        """Offset of (line, character); clamped to the line (and the text), never raising.

        A character pointing inside a multi-unit character (half a surrogate pair,
        inside a UTF-8 sequence) lands before that character.
        """
        if line < 0:
            return 0
        if self._starts is None and self._newline_only and self._budget > 0:
            span = self._counted_line(line)
            if span is None:
                return len(self.text)
            start, end = span
        else:
            starts = self.line_starts
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
        return start + code_points(self.text[start : min(end, start + character)],
                                    character, encoding)


def _line_starts(text: str) -> list[int]:
    starts = [0]
    if "\r" in text:
        starts.extend(m.end() for m in _LINE_BREAK.finditer(text))
        return starts
    find = text.find
    pos = find("\n")
    while pos >= 0:
        starts.append(pos + 1)
        pos = find("\n", pos + 1)
    return starts


def code_points(prefix: str, character: int, encoding: str) -> int:
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
    seen = 0
    for count, char in enumerate(prefix):
        seen += 2 if ord(char) > 0xFFFF else 1
        if seen > character:
            return count
    return len(prefix)
