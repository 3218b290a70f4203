"""The workspace-scale bench section's table (bench/workspace_scale.py): every column, and a
missed target said so.  No timing asserted."""

from __future__ import annotations

from bench.workspace_scale import markdown

ROW = {"designs": 5000, "startup_s": 0.7, "idle_cpu_pct": 0.1, "rss_mb": 61.0, "rss_indexed_mb": 75.0,
       "keystroke_alone_ms": 1.0, "keystroke_during_first_ms": 2.0,
       "keystroke_during_first_max_ms": 9.0, "keystrokes_during_first": 40,
       "keystroke_ratio": 2.0, "first_query_ms": 2400.0, "later_query_ms": 20.0,
       "events_then_query_ms": 30.0, "events": 100,
       "watched": ["**/*.hwf.json", "**/*.hwf-test.json"]}


def test_the_table_has_a_row_per_size_and_the_verdict() -> None:
    text = markdown({"rows": [ROW], "targets": [
        {"target": "a keystroke during the first workspace/symbol ≤ 3× alone", "value": 4.0,
         "met": False}]})
    assert "| 5,000 | 700 ms | 0.10 | 61 / 75 | 1.0 ms | 2.0 / 9.0 ms (40) | 2.00× | 2400 ms |" in text
    assert "`**/*.hwf-test.json`" in text
    assert "4.00× (**missed**)" in text
