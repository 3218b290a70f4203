"""Breakpoints on node lines (docs/debugging.md): verified inside a step's object, else
unverified with a message; conditions in the condition grammar; logpoints."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.dap_client import line_of

# (a line of review-flow.hwf.json, found by what it holds) -> verified, or the message's words
VERIFICATION = [
    ('"id": "draft"', True),
    ('"prompt": "Review the draft', True),  # any line inside the object
    ('"expression": "out.review.score >= 7"', True),
    ('"question": "Publish', True),
    ('"target": "slack:#reviews"', True),
    ('"id": "start"', "is a trigger: it never runs"),
    ('"type": "note"', "is a note: it never runs"),
    ('"name": "review-flow"', "is not inside a node's object"),
    ('"nodes": [', "is not inside a node's object"),
]


def check_verification(design: Path, dap, lines_start_at1: bool) -> None:
    client = dap()
    client.ok("initialize", {"adapterID": "hwf", "linesStartAt1": lines_start_at1})
    base = 1 if lines_start_at1 else 0
    requested = [{"line": line_of(design, needle) - 1 + base} for needle, _ in VERIFICATION]
    shown = client.ok("setBreakpoints", {"source": {"path": str(design)},
                                         "breakpoints": requested})["breakpoints"]
    assert len(shown) == len(VERIFICATION)
    for (needle, want), got, asked in zip(VERIFICATION, shown, requested, strict=True):
        assert got["line"] == asked["line"], needle
        if want is True:
            assert got["verified"] is True, (needle, got)
        else:
            assert got["verified"] is False, (needle, got)
            assert want in got["message"], (needle, got)


@pytest.mark.parametrize("lines_start_at1", [True, False])
def test_breakpoint_verification_table(design: Path, dap, lines_start_at1: bool) -> None:
    check_verification(design, dap, lines_start_at1)


def test_an_invalid_condition_is_an_unverified_breakpoint_with_the_parse_error(
        design: Path, dap) -> None:
    client = dap()
    client.ok("initialize", {"adapterID": "hwf"})
    shown = client.ok("setBreakpoints", {"source": {"path": str(design)}, "breakpoints": [
        {"line": line_of(design, '"id": "publish"'), "condition": "out.review.score <"},
        {"line": line_of(design, '"id": "publish"'), "condition": "review.score < 7"},
    ]})["breakpoints"]
    assert [bp["verified"] for bp in shown] == [False, False]
    assert "is not valid" in shown[0]["message"] and "literal" in shown[0]["message"]
    assert "out." in shown[1]["message"]


def test_a_breakpoint_on_an_unreadable_source_is_unverified(tmp_path: Path, dap) -> None:
    client = dap()
    client.ok("initialize", {"adapterID": "hwf"})
    shown = client.ok("setBreakpoints", {"source": {"path": str(tmp_path / "none.json")},
                                         "breakpoints": [{"line": 3}]})["breakpoints"]
    assert shown[0]["verified"] is False and "cannot read" in shown[0]["message"]


def case_of(design: Path, name: str) -> str:
    return f"{design.parent / 'review-flow.hwf-test.json'}#{name}"


GOOD = "a good draft, approved, is posted"

# condition on the `good-enough` line -> whether the run stops there (the case's review
# scores 8)
CONDITIONS = [
    ("out.review.score >= 8", True),
    ("out.review.score < 7", False),
    ('out.review.verdict == "approve"', True),
    ("out.review.missing == 1", False),
]


@pytest.mark.parametrize(("condition", "stops"), CONDITIONS)
def test_conditional_breakpoint_hit_and_miss(design: Path, dap, condition: str,
                                             stops: bool) -> None:
    client = dap()
    client.start({"design": str(design), "testCase": case_of(design, GOOD)},
                 {str(design): [{"line": line_of(design, '"id": "good-enough"'),
                                 "condition": condition}]})
    event = client.wait_event("stopped" if stops else "terminated")
    if stops:
        assert event["reason"] == "breakpoint" and event["text"] == "good-enough"
        frames = client.ok("stackTrace", {"threadId": 1})["stackFrames"]
        assert frames[0]["line"] == line_of(design, '"id": "good-enough"')
    else:
        assert not [e for e in client.events if e["event"] == "stopped"]


def test_a_logpoint_prints_its_message_and_does_not_stop(design: Path, dap) -> None:
    client = dap()
    client.start({"design": str(design), "testCase": case_of(design, GOOD)},
                 {str(design): [{"line": line_of(design, '"id": "good-enough"'),
                                 "logMessage": "score is {out.review.score}, {out.nope.x}"}]})
    client.wait_event("terminated")
    assert "score is 8, <no value>\n" in client.output()
    assert not [e for e in client.events if e["event"] == "stopped"]


def test_node_breakpoints_by_name(design: Path, dap) -> None:
    """A function breakpoint names a step (what the canvas knows of a node)."""
    client = dap()
    client.ok("initialize", {"adapterID": "hwf"})
    early = client.ok("setFunctionBreakpoints", {"breakpoints": [{"name": "publish"}]})
    assert "launch the design first" in early["breakpoints"][0]["message"]
    client.request("launch", {"design": str(design), "testCase": case_of(design, GOOD)})
    shown = client.ok("setFunctionBreakpoints", {"breakpoints": [
        {"name": "start"}, {"name": "nope"}, {"name": "review", "condition": "out.x <"},
        {"name": "publish", "condition": "out.review.score == 8"}]})["breakpoints"]
    assert [bp["verified"] for bp in shown] == [False, False, False, True]
    assert "'start' is not a step" in shown[0]["message"]
    assert "is not valid" in shown[2]["message"]
    client.ok("configurationDone")
    stopped = client.wait_event("stopped")
    assert (stopped["reason"], stopped["text"], stopped["hitBreakpointIds"]) == (
        "breakpoint", "publish", [shown[3]["id"]])
