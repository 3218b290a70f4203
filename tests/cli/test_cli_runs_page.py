"""`hwf runs` pages newest first: --limit N (20 by default), --all, --design, --status."""

from __future__ import annotations

import json

import pytest

STATUSES = ("completed", "failed", "awaiting_agent")


@pytest.fixture
def history(hwf):
    runs = hwf.home / "workflow-runs"
    runs.mkdir(parents=True)
    for i in range(30):
        state = {"run_id": f"{i:08x}", "name": f"d{i % 3}", "status": STATUSES[i % 3],
                 "cursor": 0, "outputs": {}, "skipped": [], "pending": None, "error": None,
                 "updated_at": f"2026-11-30T10:00:{i:02d}Z"}
        (runs / f"{i:08x}.json").write_text(json.dumps(state))
    return [f"{i:08x}" for i in reversed(range(30))]  # newest first


def listed(hwf, *args: str) -> list[str]:
    result = hwf("runs", "--json", *args)
    assert result.code == 0, result.stderr
    return [run["run_id"] for run in json.loads(result.stdout)]


@pytest.mark.parametrize("args, expected", [
    ((), lambda ids: ids[:20]),
    (("--limit", "5"), lambda ids: ids[:5]),
    (("--all",), lambda ids: ids),
    (("--design", "d1"), lambda ids: [r for r in ids if int(r, 16) % 3 == 1]),
    (("--status", "failed", "--limit", "3"), lambda ids: [r for r in ids if int(r, 16) % 3 == 1][:3]),
    (("--design", "d0", "--status", "failed"), lambda ids: []),
])
def test_pages_and_filters(hwf, history, args, expected) -> None:
    assert listed(hwf, *args) == expected(history)


def test_the_table_says_when_there_is_more(hwf, history) -> None:
    out = hwf("runs", "--limit", "4").stdout.splitlines()
    assert len(out) == 1 + 4 + 1 and out[-1] == "(the newest 4; more with --limit 8 or --all)"
    assert "more with" not in hwf("runs", "--all").stdout
    assert "no runs matching --design nope" in hwf("runs", "--design", "nope").stdout


@pytest.mark.parametrize("args", [("--limit", "0"), ("--limit", "x"), ("--status", "odd"),
                                  ("--limit", "3", "--all")])
def test_bad_options_are_usage_errors(hwf, history, args) -> None:
    assert hwf("runs", *args).code == 2
