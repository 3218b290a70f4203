"""`edit_between`: the part of a whole-text change that differs (the protocol's TextEdit of
a didChange without a range), exact and as small as can be."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hwf_lsp.server.protocol import edit_between


def common_prefix(a: str, b: str) -> int:
    k = 0
    while k < min(len(a), len(b)) and a[k] == b[k]:
        k += 1
    return k


def check(before: str, after: str) -> None:
    start, end = edit_between(before, after)
    replacement = after[start:len(after) - (len(before) - end)]
    assert 0 <= start <= end <= len(before)
    assert before[:start] + replacement + before[end:] == after
    assert start == common_prefix(before, after)
    assert len(before) - end == common_prefix(before[start:][::-1], after[start:][::-1])


@pytest.mark.parametrize(("before", "after"), [
    ("", ""), ("", "a"), ("a", ""), ("abc", "abc"), ("abc", "abxc"), ("aaaa", "aaa"),
    ("x" * 5000 + "a" + "y" * 7000, "x" * 5000 + "b" + "y" * 7000),  # past the first chunks
    ("x" * 70_000, "x" * 70_000 + "z"), ("é😀" * 300, "é😀" * 150 + "😀é" * 150),
])
def test_edit_between(before: str, after: str) -> None:
    check(before, after)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab\n😀", max_size=3000), st.data())
def test_edit_between_any_one_edit(before: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(before)))
    end = data.draw(st.integers(start, len(before)))
    check(before, before[:start] + data.draw(st.text(alphabet="abc", max_size=4)) + before[end:])
