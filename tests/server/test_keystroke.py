"""`did_change_params`: the keystroke's didChange structured without cattrs gives what cattrs
gives, and says None (the generic path judges it) for every shape it does not know."""

from __future__ import annotations

import copy

import pytest
from lsprotocol import types
from pygls.protocol import default_converter

from hwf_lsp.server.keystroke import did_change_params

CONVERTER = default_converter()
RANGE = {"start": {"line": 3, "character": 7}, "end": {"line": 3, "character": 8}}


def params(*changes: dict, uri: str = "file:///w/a.hwf.json", version: int = 2) -> dict:
    return {"textDocument": {"uri": uri, "version": version}, "contentChanges": list(changes)}


def with_change(**replace: object) -> dict:
    change = {"range": copy.deepcopy(RANGE), "text": "x"}
    change.update(replace)
    return params({k: v for k, v in change.items() if v is not DROP})


DROP = object()


def with_position(side: str, **replace: object) -> dict:
    rng = copy.deepcopy(RANGE)
    rng[side].update(replace)
    return params({"range": rng, "text": "x"})


KNOWN = [
    params({"range": RANGE, "text": "x"}),
    params({"range": RANGE, "text": ""}),
    params({"range": RANGE, "rangeLength": 1, "text": "é😀"}),
    params({"text": "{\"nodes\": []}"}),
    params({"text": "a"}, {"range": RANGE, "text": "b"}),
    params(),
    params({"range": {"start": {"line": 0, "character": 0},
                      "end": {"line": 2**31 - 1, "character": 0}}, "text": ""}),
]

UNKNOWN = [
    None, [], "x", {},
    {"textDocument": {"uri": "file:///a", "version": 1}},  # no contentChanges
    {**params(), "extra": 1},
    params(version=True), params(version=None), params(version=1.0), params(uri=3),
    {"textDocument": {"uri": "file:///a", "version": 1, "extra": 0}, "contentChanges": []},
    {"textDocument": ["file:///a", 1], "contentChanges": []},
    {"textDocument": {"uri": "file:///a", "version": 1}, "contentChanges": {}},
    params("x"), params({}), params({"text": 3}),
    with_change(text=DROP), with_change(range=None), with_change(range=[]),
    with_change(rangeLength=-1), with_change(rangeLength=True), with_change(extra=1),
    with_position("start", line=-1), with_position("end", character=2**31),
    with_position("start", line=1.5), with_position("end", character=False),
    with_position("start", extra=0),
]


@pytest.mark.parametrize("raw", KNOWN)
def test_known_shapes_are_structured_as_cattrs_does(raw: dict) -> None:
    expected = CONVERTER.structure(raw, types.DidChangeTextDocumentParams)
    assert did_change_params(raw) == expected


@pytest.mark.parametrize("raw", UNKNOWN)
def test_other_shapes_are_left_to_cattrs(raw: object) -> None:
    assert did_change_params(raw) is None
