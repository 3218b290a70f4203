"""The one vocabulary of step states: the words, their icons, and the short labels.

Every surface (the `hwf` CLI, hover, inlay hints, code lenses, the run summary the
editor and the Hermes tools get) shows a step's state with these words and icons and
nothing else, so a failed delivery or a rejection reads the same everywhere (one truth
about a run).  What state a step is in is decided by
`run_facts.step_facts`; this module only names and draws it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

STEP_DONE = "done"
STEP_REUSED = "reused"
STEP_ANSWERED = "answered"
STEP_REJECTED = "rejected"
STEP_SKIPPED = "skipped"
STEP_WAITING = "waiting"
STEP_FAILED = "failed"
STEP_NOT_DELIVERED = "not delivered"
STEP_RUNNING = "running"
STEP_NOT_RUN = "not run"

STEP_ICONS: dict[str, str] = {
    STEP_DONE: "✓",
    STEP_REUSED: "↺",
    STEP_ANSWERED: "☑",
    STEP_REJECTED: "⊘",
    STEP_SKIPPED: "⤼",
    STEP_WAITING: "⏸",
    STEP_FAILED: "✗",
    STEP_NOT_DELIVERED: "⚠",
    STEP_RUNNING: "⟳",
    STEP_NOT_RUN: "○",
}
"""Every step state, in the order a legend lists them, with its icon."""

STEP_STATES: tuple[str, ...] = tuple(STEP_ICONS)

FINISHED_STEP_STATES: frozenset[str] = frozenset({
    STEP_DONE, STEP_REUSED, STEP_ANSWERED, STEP_REJECTED, STEP_SKIPPED, STEP_NOT_DELIVERED,
})
"""States of a step that has its result: what a run's progress ("finished/total") counts."""

WHY_FALSE_CONDITION = "false condition"
WHY_SKIPPED_PARENT = "skipped parent"
WHY_REJECTED_UPSTREAM = "rejected upstream"
"""Why a step is skipped (`why` of a skipped step's facts)."""
WHY_HELD_BY_DEBUGGER = "the debugger stopped before it"
"""Why the step a running run is at has not started (`why` of a not-run step)."""


def icon_of(status: Any) -> str:
    """The icon of a step state (an unknown word gets the not-run icon)."""
    return STEP_ICONS.get(status, STEP_ICONS[STEP_NOT_RUN])


def step_label(fact: dict[str, Any]) -> str:
    """The short label of one step's facts, e.g. `✓ done`, `☑ answered ship`,
    `⤼ skipped: false condition`, `⤼ skipped: false, out.review is text, not JSON` (a
    condition's warning), `⏸ waiting for approval`: inlay hints, lenses,
    the CLI's status column and hover all show this."""
    status = fact.get("status")
    words = str(status)
    if status == STEP_ANSWERED and fact.get("answer") is not None:
        words += f" {fact['answer']}"
    elif status == STEP_SKIPPED and fact.get("warning"):
        words += f": false, {warning_headline(fact['warning'])}"
    elif status in (STEP_SKIPPED, STEP_NOT_RUN) and fact.get("why"):
        words += f": {fact['why']}"
    elif status == STEP_WAITING and fact.get("waiting_for"):
        words += f" for {'an agent' if fact['waiting_for'] == 'agent' else 'approval'}"
    elif status == STEP_FAILED and fact.get("attempts"):
        count = len(fact["attempts"])
        words += f" after {count} attempt{'s' if count != 1 else ''}"
    return f"{icon_of(status)} {words}"


def warning_headline(warning: Any) -> str:
    """The first words of a step's warning (`out.review is text, not JSON`): what a label
    has room for; the whole warning is in the sentence and the run's summary."""
    return str(warning).split("; ", 1)[0].split(" (", 1)[0]


def step_sentence(fact: dict[str, Any]) -> str:
    """The label and the runner's own words about the step (why it skipped, the receipt's
    or the failure's error, since when it waits): hover and `hwf show` print this."""
    label = step_label(fact)
    extra = fact.get("error") or fact.get("warning") or fact.get("detail")
    if fact.get("status") == STEP_WAITING and fact.get("since"):
        extra = f"since {fact['since']}" + ("; escalated" if fact.get("escalated") else "")
    return f"{label} — {extra}" if extra else label


def progress_text(finished: Any, total: Any) -> str:
    """A run's progress, one convention everywhere: steps finished / steps in the plan."""
    if not isinstance(total, int) or isinstance(total, bool) or total <= 0:
        return "-"
    return f"{finished}/{total}"


def stamp_seconds(stamp: Any) -> float | None:
    """An ISO stamp of a run file (`…Z` or an offset) as epoch seconds; None if it is not one."""
    if not isinstance(stamp, str):
        return None
    try:
        return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def seconds_text(seconds: float) -> str:
    """A span of time as people read it: `0.25 s`, `12 s`, `3 min 5 s`, `2 h 5 min`."""
    if seconds < 60:
        return f"{seconds:.2f} s" if seconds < 10 else f"{seconds:.0f} s"
    minutes, rest = divmod(int(round(seconds)), 60)
    if minutes < 60:
        return f"{minutes} min {rest} s"
    return f"{minutes // 60} h {minutes % 60} min"


def duration_text(started_at: Any, ended_at: Any, waited_s: Any = None) -> str | None:
    """How long a step ran, e.g. `0.25 s`, `3 min 5 s`: from start to end less the time
    it sat parked (`waited_s` of its facts); None without both times."""
    start, end = stamp_seconds(started_at), stamp_seconds(ended_at)
    if start is None or end is None or end < start:
        return None
    waited = waited_s if isinstance(waited_s, (int, float)) and waited_s > 0 else 0.0
    return seconds_text(max(0.0, end - start - waited))


def ran_text(fact: dict[str, Any]) -> str | None:
    """How long the step of `fact` ran, and how long it waited when it did:
    `0.02 s (waited 1 min 15 s)`; None when the run did not record both times."""
    took = duration_text(fact.get("started_at"), fact.get("ended_at"), fact.get("waited_s"))
    waited = fact.get("waited_s")
    if took and isinstance(waited, (int, float)) and waited > 0:
        return f"{took} (waited {seconds_text(waited)})"
    return took


def times_text(fact: dict[str, Any]) -> str | None:
    """When a step ran: `started … ended … (ran …, waited …)`, as far as the run recorded it."""
    started, ended = fact.get("started_at"), fact.get("ended_at")
    if not started:
        return None
    if not ended:
        return f"started {started}"
    took = duration_text(started, ended, fact.get("waited_s"))
    waited = fact.get("waited_s")
    parts = [f"ran {took}"] if took else []
    if isinstance(waited, (int, float)) and waited > 0:
        parts.append(f"waited {seconds_text(waited)}")
    return f"started {started}, ended {ended}" + (f" ({', '.join(parts)})" if parts else "")


def debug_edits(state: Any) -> list[dict[str, Any]] | None:
    """The outputs the user edited in a debug run (`hwf debug-adapter`'s `debug.edits`),
    oldest first; None when the run is no debug run."""
    mark = state.get("debug") if isinstance(state, dict) else None
    if not isinstance(mark, dict):
        return None
    return [edit for edit in mark.get("edits") or () if isinstance(edit, dict)]


def debug_mark(state: Any) -> str | None:
    """A debug run's mark, one wording on every surface: `debug run (testCase f#c): 1 edit
    by the user`; None for any other run."""
    edits = debug_edits(state)
    if edits is None:
        return None
    mark = state["debug"]
    how = ", ".join(f"{key} {mark[key]}" for key in ("testCase", "replay") if mark.get(key))
    return (f"debug run{' (' + how + ')' if how else ''}: {len(edits)} edit"
            f"{'s' if len(edits) != 1 else ''} by the user")


def edit_place(edit: dict[str, Any]) -> str:
    """Where an edit went, as a condition names it: `out.review.verdict`."""
    return ".".join(["out", str(edit.get("node")), *map(str, edit.get("path") or [])])
