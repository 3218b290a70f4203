"""The bench's own arithmetic and documents: percentiles, growth fit, generated designs."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.gen import (  # noqa: E402
    SIZES,
    design_of_size,
    design_with_nodes,
    insert_char,
    position_of,
    replace_char,
)
from bench.lsp_client import LspClient  # noqa: E402
from bench.stats import growth_exponent, percentile, summary  # noqa: E402


@pytest.mark.parametrize(("values", "fraction", "expected"), [
    ([1.0], 0.99, 1.0),
    ([1.0, 2.0, 3.0, 4.0], 0.5, 2.5),
    ([4.0, 1.0, 3.0, 2.0], 0.0, 1.0),
    ([4.0, 1.0, 3.0, 2.0], 1.0, 4.0),
    (list(map(float, range(101))), 0.9, 90.0),
    (list(map(float, range(11))), 0.99, 9.9),
])
def test_percentile(values: list[float], fraction: float, expected: float) -> None:
    assert percentile(values, fraction) == pytest.approx(expected)


def test_percentile_of_nothing_is_nan() -> None:
    assert math.isnan(percentile([], 0.5))
    assert summary([])["p50_ms"] is None


@pytest.mark.parametrize(("power", "scale"), [(1.0, 2.0), (2.0, 0.5), (0.5, 10.0), (0.0, 3.0)])
def test_growth_exponent_recovers_a_power_law(power: float, scale: float) -> None:
    xs = [10.0, 100.0, 1000.0, 5000.0]
    fit = growth_exponent(xs, [scale * x**power for x in xs])
    assert fit is not None
    assert fit["exponent"] == pytest.approx(power, abs=1e-3)
    assert fit["r2"] == pytest.approx(1.0)


@pytest.mark.parametrize(("xs", "ys"), [([], []), ([10.0], [1.0]), ([5.0, 5.0], [1.0, 2.0]),
                                        ([0.0, -1.0], [1.0, 2.0])])
def test_growth_exponent_needs_two_distinct_points(xs: list[float], ys: list[float]) -> None:
    assert growth_exponent(xs, ys) is None


@pytest.mark.parametrize("label", sorted(SIZES))
def test_sized_designs_hit_their_size_and_keep_anchors_in_place(label: str) -> None:
    doc = design_of_size(label, SIZES[label])
    assert abs(doc.size - SIZES[label]) / SIZES[label] < 0.1
    check_anchors(doc)


@pytest.mark.parametrize("count", [50, 500, 5000])
def test_node_designs_have_their_node_count(count: int) -> None:
    doc = design_with_nodes(count)
    assert len(json.loads(doc.text)["nodes"]) == count
    check_anchors(doc)


def check_anchors(doc) -> None:  # type: ignore[no-untyped-def]
    """Edits land inside a prompt string, hover on the key prompt, completion in a type value."""
    text = doc.text
    assert doc.filename.endswith(".hwf.json")
    line_start = text.rfind("\n", 0, doc.edit_offset) + 1
    assert text[line_start:doc.edit_offset].lstrip().startswith('"prompt": "')
    assert text[doc.hover_offset - 3:doc.hover_offset + 6] == '"prompt":'
    assert text[doc.completion_offset - len('"type": "'):doc.completion_offset] == '"type": "'
    edited = replace_char(text, doc.edit_offset, "Z")
    assert len(edited) == len(text) and edited != text
    json.loads(edited)
    json.loads(insert_char(text, doc.edit_offset, "Q"))
    check_id_anchor(doc)


def check_id_anchor(doc) -> None:  # type: ignore[no-untyped-def]
    """The id edit changes a digit of the middle node's id, and only that id."""
    nodes = json.loads(doc.text)["nodes"]
    original, *edited_ids = doc.edited_ids
    assert doc.offset_of("id") == doc.id_edit_offset
    assert doc.offset_of("prompt") == doc.edit_offset
    assert doc.offset_of("break") == doc.break_edit_offset
    assert doc.text[doc.id_edit_offset].isdigit()
    index = [n["id"] for n in nodes].index(original)
    assert abs(index / len(nodes) - 0.5) < 0.05  # the middle node
    for char, expected in zip("xy", edited_ids, strict=True):
        edited = json.loads(replace_char(doc.text, doc.id_edit_offset, char))["nodes"]
        changed = [(a["id"], b["id"]) for a, b in zip(nodes, edited, strict=True)
                   if a["id"] != b["id"]]
        assert changed == [(original, expected)]
        assert expected not in doc.text
    check_break_anchor(doc)


def check_break_anchor(doc) -> None:  # type: ignore[no-untyped-def]
    """The breaking edit replaces the comma right after the middle node's id value: either
    letter leaves the text invalid JSON, the comma put back makes it the original again."""
    original = doc.edited_ids[0]
    at = doc.break_edit_offset
    assert doc.text[at] == "," and doc.text[at - len(original) - 2:at] == f'"{original}"'
    for char in "xy":
        with pytest.raises(json.JSONDecodeError):
            json.loads(replace_char(doc.text, at, char))
    assert replace_char(replace_char(doc.text, at, "x"), at, ",") == doc.text


@pytest.mark.parametrize(("text", "offset", "expected"), [
    ("abc", 0, {"line": 0, "character": 0}),
    ("abc", 2, {"line": 0, "character": 2}),
    ("ab\ncd", 3, {"line": 1, "character": 0}),
    ("ab\ncd\nef", 7, {"line": 2, "character": 1}),
])
def test_position_of(text: str, offset: int, expected: dict[str, int]) -> None:
    assert position_of(text, offset) == expected


def test_frames_carry_the_byte_length_of_the_body() -> None:
    frame = LspClient.encode({"jsonrpc": "2.0", "method": "x", "params": {"t": "é"}})
    header, _, body = frame.partition(b"\r\n\r\n")
    assert header == b"Content-Length: %d" % len(body)
    assert json.loads(body)["params"]["t"] == "é"


TARGET_DOCS = ("size-10k", "size-100k", "size-1m")


def fake_results(p50s: dict[tuple[str, str], float], docs: tuple[str, ...]) -> dict:
    """Just enough of a run for report.targets: (server, op) -> p50 on every doc."""
    from bench import report

    rows = [{"server": server, "doc": doc, "op": op, "p50_ms": p50, "p99_ms": p50}
            for doc in docs for (server, op), p50 in p50s.items()]
    return {"latency": rows, "ratios": report.ratios(rows), "typing": {}, "cold_start": {},
            "engine": {"runner": {"overhead_per_step_ms": 1.0}}}


def change_p50s(prompt: float, id_edit: float, floor: float) -> dict[tuple[str, str], float]:
    return {("hwf-lsp", "change"): prompt, ("hwf-lsp", "change-id"): id_edit,
            ("floor", "change"): floor, ("floor", "change-id"): floor}


@pytest.mark.parametrize(("p50s", "docs", "expected"), [
    # (prompt keystroke, id keystroke): each judged against 3× the floor only
    (change_p50s(1.9, 1.9, 1.0), TARGET_DOCS, (True, True)),
    (change_p50s(3.0, 3.0, 1.0), TARGET_DOCS, (True, True)),
    (change_p50s(2.9, 3.1, 1.0), TARGET_DOCS, (True, False)),
    (change_p50s(3.1, 2.9, 1.0), TARGET_DOCS, (False, True)),
    (change_p50s(1.0, 1.0, 1.0), ("size-10k",), (None, None)),  # smoke
])
def test_change_target_verdicts_for_both_edits(p50s: dict, docs: tuple[str, ...],
                                               expected: tuple[bool | None, ...]) -> None:
    from bench import report

    verdicts = report.targets(fake_results(p50s, docs))
    found = tuple(next(v["holds"] for v in verdicts if f"({edit} keystroke)" in v["target"])
                  for edit in ("prompt", "id"))
    assert found == expected
    keystroke = [v for v in verdicts if "keystroke" in v["target"]]
    # one verdict per kind of edit, against the floor; the peers are compared, not judged
    assert sorted(v["op"] for v in keystroke) == sorted(report.CHANGE_OPS)
    assert all("floor" in v["target"] and "peer" not in v["target"] for v in keystroke)
    # edits without rows (here: the breaking and the full-text ones) are not decided
    assert all(v["holds"] is None and v["measured"] == "not measured" for v in keystroke
               if v["op"] not in ("change", "change-id"))
    runner = next(v for v in verdicts if v["target"].startswith("runner"))
    assert runner["holds"] is True


@pytest.mark.parametrize(("failures", "holds"), [(0, True), (1, False)])
def test_every_request_beyond_the_limits_must_be_answered(failures: int, holds: bool) -> None:
    from bench import report

    results = fake_results(change_p50s(1.0, 1.0, 1.0), (*TARGET_DOCS, "size-5m"))
    for row in results["latency"]:
        if row["server"] == "hwf-lsp" and row["doc"] == "size-5m" and row["op"] == "change-id":
            row["failures"] = failures
    [found] = [v for v in report.targets(results) if "5 MB and 5,000 nodes" in v["target"]]
    assert found["holds"] is holds


@pytest.mark.parametrize(("p50s", "expected"), [
    (change_p50s(1.9, 1.9, 1.0), []),
    (change_p50s(2.9, 3.1, 1.0), [("change-id", d) for d in TARGET_DOCS]),
    (change_p50s(3.1, 2.9, 1.0), [("change", d) for d in TARGET_DOCS]),
    (change_p50s(3.1, 3.5, 1.0), [(op, d) for d in TARGET_DOCS
                                        for op in ("change", "change-id")]),
])
def test_profiles_replay_the_edit_that_missed(p50s: dict, expected: list) -> None:
    """A missed id-keystroke target is profiled with the id edit, per slow document."""
    from bench import report
    from bench.profiles import slow_changes

    results = fake_results(p50s, TARGET_DOCS)
    results["targets"] = report.targets(results)
    by_name = {name: design_of_size(name.removeprefix("size-"), 1000) for name in TARGET_DOCS}
    assert [(op, doc.name) for op, doc in slow_changes(results, by_name)] == [
        (op, by_name[name].name) for op, name in expected]


class _StandIn:
    """A Session's change(), answering at once and recording who was asked, in order."""

    def __init__(self, name: str, asked: list[str]) -> None:
        self.name, self.asked = name, asked

    async def change(self, uri: str, offset: int, char: str, full: bool) -> tuple[float, int]:
        self.asked.append(self.name)
        return 0.001, 3


def test_change_samples_take_turns_with_a_rotating_first() -> None:
    """Each round asks every server once, a different one first each round, and every row
    keeps only its own samples (the warm-up rounds included in the order, not the rows)."""
    import asyncio

    from bench.scenarios import measure_change_in_turns

    asked: list[str] = []
    sessions = [(_StandIn(name, asked), f"file:///{name}") for name in "abc"]
    doc = design_of_size("10k", 1000)
    rows = asyncio.run(measure_change_in_turns(sessions, doc, 3, 1, "prompt"))
    assert asked == [*"abc", *"bca", *"cab", *"abc"]
    assert [(row["n"], row["diagnostics"], row["failures"]) for row in rows] == [(3, 3, 0)] * 3
