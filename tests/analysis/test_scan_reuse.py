"""A parse that reuses the last parse's scans (analysis/scan_reuse.py) is the parse from
scratch: same tree, same value, same syntax errors, same findings.

Every design of the recovery corpus in both layouts is broken in a few nodes by every
break kind (tests/support/breaks.py); then a second edit is made to the broken text, as
a user typing on would: at the break again, inside another node, across two nodes, one
that mends the break, one that breaks a second node.  The parse of the result with the
first parse's scans carried through that edit must equal a parse from scratch.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest
from support.breaks import LAYOUTS, Break, breaks_of, corpus_designs, node_objects

from hwf_lsp.analysis import jsontree
from hwf_lsp.analysis.check import check_document
from hwf_lsp.analysis.jsontree import JsonNode, parse
from hwf_lsp.analysis.scan_reuse import through_edit

BIG = 60
"""Designs with more nodes are broken in their middle node only (each parse walks all)."""


class _Marker:
    """A member's key in the walk (pushed before its value, so it comes out first)."""

    def __init__(self, key: tuple) -> None:
        self.key = key


def _dump(node: JsonNode | None) -> list[tuple]:
    """The whole tree in document order: kind, span, closedness, scalars, keys."""
    out: list[tuple] = []
    stack: list = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, _Marker):
            out.append(current.key)
        elif current is None:
            out.append(("missing",))
        else:
            out.append((current.kind, current.start, current.end, current.closed,
                        None if current.kind in ("object", "array") else current.value))
            if current.kind == "object":
                for member in reversed(current.members or []):
                    stack.append(member.value)
                    stack.append(_Marker(("key", member.key, member.key_start,
                                          member.key_end, member.colon)))
            elif current.kind == "array":
                stack.extend(reversed(current.items or []))
    return out


def second_edits(intact: str, text: str, first: Break, objs: list,
                 index: int) -> list[tuple[str, Break]]:
    """Edits of the broken `text` (made from `intact` by `first`): (name, edit), each a
    Break on `text`."""
    at = first.moved(first.at)
    other = objs[(index + 1) % len(objs)] if len(objs) > 1 else objs[0]
    o_start, o_end = first.moved(other.start), first.moved(other.end)
    inside_other = o_start + 1 + (o_end - o_start) // 2
    edits = [
        ("at the break again", Break("again", at, "x")),
        ("inside another node", Break("inside", inside_other, " ")),
        ("a second break", Break("second", o_end - 1, deleted=1)),
        ("mended", Break("mend", first.at, intact[first.at:first.at + first.deleted],
                         deleted=len(first.inserted))),
    ]
    if len(objs) > 1:
        lo, hi = sorted((at, inside_other))
        edits.append(("across nodes", Break("across", lo, deleted=max(1, min(hi - lo, 40)))))
    return [(name, edit) for name, edit in edits if 0 <= edit.at <= len(text)]


def corpus_texts() -> Iterator[tuple[str, str, list, list[int]]]:
    """(where, text, its node objects, the nodes to break) for every corpus design in both
    layouts: the first, middle and last node, or only the middle one of a big design."""
    for name, design in corpus_designs().items():
        for layout, render in LAYOUTS.items():
            intact = render(design)
            objs = node_objects(intact)
            picks = [len(objs) // 2] if len(objs) > BIG else sorted({0, len(objs) // 2,
                                                                   len(objs) - 1})
            yield f"{name} ({layout})", intact, objs, picks


def _same(text: str, reuse: dict) -> None:
    fresh, carried = parse(text), parse(text, reuse)
    assert [(e.msg, e.start, e.end) for e in carried.errors] == \
        [(e.msg, e.start, e.end) for e in fresh.errors]
    assert carried.to_python() == fresh.to_python()
    assert _dump(carried.root) == _dump(fresh.root)
    assert check_document(carried) == check_document(fresh)


def test_a_parse_with_carried_scans_is_the_parse_from_scratch() -> None:
    counts: Counter = Counter()
    for where, intact, objs, picks in corpus_texts():
        for index in picks:
            for first in breaks_of(intact, objs[index]):
                broken = first.apply(intact)
                before = parse(broken)
                if not before.errors:
                    continue
                for what, edit in second_edits(intact, broken, first, objs, index):
                    after = edit.apply(broken)
                    reuse = through_edit(before.scans, edit.at, edit.at + edit.deleted,
                                         edit.inserted)
                    try:
                        _same(after, reuse)
                    except AssertionError as error:
                        raise AssertionError(
                            f"{where}, node {index}, {first.kind}, then {what}") from error
                    counts[what] += 1
                    counts["reused scans"] += len(reuse)
                    if what == "mended":
                        counts["broken again"] += _break_again(after, reuse, first, where)
    assert counts["at the break again"] > 100 and counts["mended"] > 100
    assert counts["broken again"] > 100
    print(dict(counts))


def _break_again(mended: str, reuse: dict, first: Break, where: str) -> int:
    """The keystroke after the one that mended the break makes it again: the mended text's
    parse kept what it scanned (`scans`), and the new parse reuses them."""
    doc = parse(mended, reuse)
    if doc.errors or not doc.scans:
        return 0
    again = through_edit(doc.scans, first.at, first.at + first.deleted, first.inserted)
    try:
        _same(first.apply(mended), lambda: again)
    except AssertionError as error:
        raise AssertionError(f"{where}, {first.kind}, mended, then broken again") from error
    return 1


def test_the_first_break_reusing_the_valid_texts_items_is_the_parse_from_scratch(
        monkeypatch) -> None:
    """The keystroke that breaks a valid text: its `nodes` items (`item_scans`) carried
    through that edit.  Arrays of two objects and up are seeded here, not only of 64, so
    every example design takes the path."""
    monkeypatch.setattr(jsontree, "_BOUNDARIES_FROM", 2)
    counts: Counter = Counter()
    for where, intact, objs, picks in corpus_texts():
        valid, built = parse(intact), parse(intact)
        _dump(built.root)  # every container built: its items give the spans
        assert built.item_scans() == valid.item_scans()
        for index in picks:
            for edit in breaks_of(intact, objs[index]):
                seeds = through_edit(valid.item_scans(), edit.at, edit.at + edit.deleted,
                                     edit.inserted)
                try:
                    _same(edit.apply(intact), lambda seeds=seeds: seeds)
                except AssertionError as error:
                    raise AssertionError(f"{where}, node {index}, {edit.kind}") from error
                counts["breaks"] += 1
                counts["reused scans"] += len(seeds)
    assert counts["breaks"] > 300 and counts["reused scans"] > 10 * counts["breaks"]
    print(dict(counts))


def test_a_valid_text_with_a_repeated_key_hands_on_no_items() -> None:
    """Its value does not mirror its objects (the last key wins): nothing to reuse."""
    items = ", ".join(f'{{"id": "n{i}"}}' for i in range(70))
    assert len(parse(f'{{"nodes": [{items}]}}').item_scans()) == 71
    repeated = items.replace('{"id": "n3"}', '{"id": "n3", "id": "x"}')
    assert parse(f'{{"nodes": [{repeated}]}}').item_scans() == {}


@pytest.mark.parametrize(("start", "end", "replacement", "expected"), [
    (5, 5, "ab", {0: (4, "v0", False), 12: (20, "v10", True)}),      # insert after the first
    (4, 4, "", {0: (4, "v0", False), 10: (18, "v10", True)}),        # nothing changes
    (3, 3, "x", {11: (19, "v10", True)}),                            # inside the first
    (9, 11, "", {0: (4, "v0", False)}),                              # over the second's start
    (4, 10, "", {0: (4, "v0", False), 4: (12, "v10", True)}),        # up to the second's start
])
def test_through_edit_keeps_what_the_edit_did_not_touch(start, end, replacement, expected):
    scans = {0: (4, "v0", False), 10: (18, "v10", True)}
    assert through_edit(scans, start, end, replacement) == expected
