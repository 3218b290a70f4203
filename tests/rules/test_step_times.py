"""A step's time is the time it ran; the time it sat parked is shown as waiting
(rules/run_facts.py `waited_s`, rules/step_words.py; issue 47)."""

from __future__ import annotations

import pytest

from hwf_lsp.rules.run_facts import step_facts
from hwf_lsp.rules.step_words import duration_text, ran_text, times_text

DESIGN = {"name": "d", "nodes": [
    {"id": "t", "type": "trigger"},
    {"id": "a", "type": "agent", "prompt": "p", "after": ["t"]},
    {"id": "g", "type": "approval", "question": "q?", "after": ["a"]},
]}
T0 = "2026-12-04T18:55:00.000Z"


def at(seconds: float) -> str:
    whole, frac = divmod(seconds, 1)
    minute, second = divmod(int(whole), 60)
    return f"2026-12-04T18:{55 + minute:02d}:{second:02d}.{int(round(frac * 1000)):03d}Z"


def run(steps, log, **overrides):
    return {"run_id": "r1", "name": "d", "cursor": 2, "status": "completed",
            "outputs": {"a": "x", "g": {"choice": "ok"}}, "skipped": [], "pending": None,
            "error": None, "answers": {"g": "ok"}, "deliveries": [], "attempts": {},
            "design": DESIGN, "steps": steps, "log": log, **overrides}


CASES = [
    ("an echo that parked 75 s for its response ran 0.5 s",
     run({"a": {"started_at": at(0), "ended_at": at(75.5)}, "g": {}},
         [{"event": "parked", "node": "a", "at": at(0.3)},
          {"event": "completed", "node": "a", "at": at(75.3)}]),
     "a", 75.0, "0.50 s (waited 1 min 15 s)"),
    ("an approval answered after 2 min ran no time worth a word",
     run({"a": {"started_at": at(0), "ended_at": at(0.2)},
          "g": {"started_at": at(0.2), "ended_at": at(120.2)}},
         [{"event": "parked", "node": "g", "at": at(0.2)},
          {"event": "answered", "node": "g", "at": at(120.2)}]),
     "g", 120.0, "0.00 s (waited 2 min 0 s)"),
    ("a step that never parked: its whole time, no waiting",
     run({"a": {"started_at": at(0), "ended_at": at(3)}, "g": {}}, []),
     "a", None, "3.00 s"),
    ("parked with no later entry: up to its end",
     run({"a": {"started_at": at(0), "ended_at": at(10)}, "g": {}},
         [{"event": "parked", "node": "a", "at": at(1)}]),
     "a", 9.0, "1.00 s (waited 9.00 s)"),
    ("junk stamps are no time", run({"a": {"started_at": "x", "ended_at": "y"}, "g": {}},
                                    [{"event": "parked", "node": "a", "at": "z"}]),
     "a", None, None),
]


@pytest.mark.parametrize(("state", "step", "waited", "ran"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_waiting_is_not_running(state, step, waited, ran) -> None:
    fact = next(f for f in step_facts(state) if f["id"] == step)
    assert fact.get("waited_s") == (pytest.approx(waited) if waited else None)
    assert ran_text(fact) == ran


def test_times_text_says_ran_and_waited() -> None:
    fact = {"started_at": at(0), "ended_at": at(75.5), "waited_s": 75.0}
    assert times_text(fact) == f"started {at(0)}, ended {at(75.5)} (ran 0.50 s, waited 1 min 15 s)"
    assert duration_text(at(0), at(75.5)) == "1 min 16 s"  # without the wait: the span
