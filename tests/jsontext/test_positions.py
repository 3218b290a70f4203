"""LineIndex: offsets <-> LSP positions in UTF-16 (default), UTF-8 and UTF-32 units."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.timing import LINEAR, growth

from hwf_lsp.jsontext.positions import LineIndex

# (text, offset, encoding, expected (line, character))
POSITION_CASES = [
    ("abc", 0, "utf-16", (0, 0)),
    ("abc", 3, "utf-16", (0, 3)),
    ("ab\ncd", 3, "utf-16", (1, 0)),
    ("ab\ncd", 2, "utf-16", (0, 2)),
    ("ab\r\ncd", 4, "utf-16", (1, 0)),
    ("ab\r\ncd", 5, "utf-16", (1, 1)),
    ("ab\rcd", 3, "utf-16", (1, 0)),  # a lone \r ends a line, as LSP says
    ("a\r\rb", 3, "utf-16", (2, 0)),
    ("a\n\r\nb", 4, "utf-16", (2, 0)),
    ("😀x", 1, "utf-16", (0, 2)),  # an emoji is two UTF-16 units
    ("😀x", 2, "utf-16", (0, 3)),
    ("😀x", 1, "utf-8", (0, 4)),
    ("😀x", 1, "utf-32", (0, 1)),
    ("日本x", 2, "utf-16", (0, 2)),  # CJK is one UTF-16 unit, three UTF-8 bytes
    ("日本x", 2, "utf-8", (0, 6)),
    ("é\n😀😀!", 4, "utf-16", (1, 4)),
    ("\ud800x", 1, "utf-16", (0, 1)),  # a raw lone surrogate counts one unit
    ("\ud800x", 1, "utf-8", (0, 3)),
    ("abc", -5, "utf-16", (0, 0)),  # clamped
    ("ab\ncd", 99, "utf-16", (1, 2)),
    ("", 0, "utf-16", (0, 0)),
]


@pytest.mark.parametrize(("text", "offset", "encoding", "expected"), POSITION_CASES)
def test_position(text: str, offset: int, encoding: str, expected: tuple[int, int]) -> None:
    assert LineIndex(text).position(offset, encoding) == expected


# (text, line, character, encoding, expected offset)
OFFSET_CASES = [
    ("ab\ncd", 1, 1, "utf-16", 4),
    ("ab\r\ncd", 1, 0, "utf-16", 4),
    ("ab\r\ncd", 0, 99, "utf-16", 2),  # past the line end: clamped before the break
    ("ab\rcd", 0, 99, "utf-16", 2),
    ("ab\ncd", 7, 0, "utf-16", 5),  # past the last line: end of text
    ("ab\ncd", -1, 3, "utf-16", 0),
    ("ab\ncd", 1, -4, "utf-16", 3),
    ("😀x", 0, 2, "utf-16", 1),
    ("😀x", 0, 1, "utf-16", 0),  # inside a surrogate pair: before the character
    ("😀x", 0, 3, "utf-16", 2),
    ("😀x", 0, 4, "utf-8", 1),
    ("😀x", 0, 2, "utf-8", 0),  # inside a UTF-8 sequence
    ("😀x", 0, 1, "utf-32", 1),
    ("日本x", 0, 6, "utf-8", 2),
    ("\ud83d\ude00x", 0, 2, "utf-16", 2),  # two raw surrogates are two code points
    ("\ud83d\ude00x", 0, 1, "utf-16", 1),
]


@pytest.mark.parametrize(("text", "line", "character", "encoding", "expected"), OFFSET_CASES)
def test_offset(text: str, line: int, character: int, encoding: str, expected: int) -> None:
    assert LineIndex(text).offset(line, character, encoding) == expected


@given(st.text(alphabet=st.sampled_from("ab\n\r é日😀\t\ud800"), max_size=60),
       st.sampled_from(["utf-16", "utf-8", "utf-32"]))
def test_round_trip(text: str, encoding: str) -> None:
    index = LineIndex(text)
    for offset in range(len(text) + 1):
        if 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n":
            continue  # between \r and \n: no position of its own
        line, character = index.position(offset, encoding)
        assert index.offset(line, character, encoding) == offset


def test_line_count_matches_lsp_line_breaks() -> None:
    assert LineIndex("a\nb\r\nc\rd").line_starts.__len__() == 4
    assert LineIndex("").line_starts.__len__() == 1
    assert LineIndex("x\n").line_starts.__len__() == 2


def lines_of(n: int) -> str:
    """n lines of a prompt with non-BMP text: ~1 MB at 5,000."""
    return "\n".join(["  \"prompt\": \"" + "word " * 40 + "é😀\"," for _ in range(n)])


def round_trips(text: str) -> None:
    """An offset per ten lines to a position and back (500 in a megabyte), on the text and
    on the text as one line: positions grow with the text, so a cost per position that
    grows with it too (a walk along the line) shows as quadratic."""
    count = (text.count("\n") + 1) // 10
    for sample in (text, text.replace("\n", " ")):
        index = LineIndex(sample)
        for offset in range(0, len(sample), len(sample) // count):
            line, character = index.position(offset)
            assert index.offset(line, character) == offset


def test_fast_on_a_megabyte() -> None:
    """Ten times the text (up to a megabyte) takes at most linearly longer."""
    ratio, times = growth(lines_of, round_trips, 500)
    assert ratio < LINEAR, times


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8", "utf-32"])
def test_long_lines_agree_with_plain_counting(encoding: str) -> None:
    """Lines longer than the checkpoint chunk use cached counts: same answers."""
    codec = {"utf-16": "utf-16-le", "utf-8": "utf-8", "utf-32": "utf-32-le"}[encoding]
    width = {"utf-16": 2, "utf-8": 1, "utf-32": 4}[encoding]
    text = "head\n" + "".join("ab😀日" if i % 7 else "x" * 50 for i in range(9000)) + "\ntail"
    index = LineIndex(text)
    for offset in range(5, len(text) - 5, 997):
        line_start = index.line_starts[index.position(offset)[0]]
        units = len(text[line_start:offset].encode(codec)) // width
        assert index.position(offset, encoding) == (1, units)
        assert index.offset(1, units, encoding) == offset


@given(st.text(alphabet=st.sampled_from("ab\n\r😀"), max_size=40))
def test_first_lookups_by_counting_match_the_table(text: str) -> None:
    """The first few lookups count line breaks instead of using the table: same answers."""
    table = LineIndex(text)
    table.line_starts  # noqa: B018 - build the table now
    for offset in range(len(text) + 1):
        assert LineIndex(text).position(offset) == table.position(offset)


@given(st.text(alphabet=st.sampled_from("ab\n\r😀"), max_size=60),
       st.lists(st.tuples(st.integers(-1, 30), st.integers(-1, 8)), max_size=8))
def test_offsets_by_counting_match_the_table(text: str, lookups: list) -> None:
    """Without the table, offset() counts line breaks from the last lookup: same answers."""
    table = LineIndex(text)
    table.line_starts  # noqa: B018 - build the table now
    counting = LineIndex(text)
    for line, character in lookups:
        assert counting.offset(line, character) == table.offset(line, character)


def test_offsets_by_counting_across_chunks_of_a_megabyte() -> None:
    """Lines of every length around the 1 KB and 64 KB steps of the count, forwards and
    back, with CRLF and non-ASCII: the counted answers are the table's, and no table is
    built for the first lookups (a request on a fresh version of a big design)."""
    lines = ["x" * (i % 97) + ("é" if i % 5 == 0 else "") for i in range(40_000)]
    text = "".join(line + ("\r\n" if i % 3 == 0 else "\n") for i, line in enumerate(lines))
    table = LineIndex(text)
    table.line_starts  # noqa: B018
    for line in (0, 1, 39_999, 20_000, 20_001, 7, 40_000, 40_001, 12_345, 655, 656):
        counting = LineIndex(text)
        for character in (0, 3, 50, 200):
            assert counting.offset(line, character) == table.offset(line, character)
        assert counting._starts is None
