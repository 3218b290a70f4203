"""Facts read off a run state, one rule each, shared by the CLI, hints, lenses and summaries.

`step_facts` is the one place that decides what each step of a run did (done, reused,
answered, rejected, skipped and why, waiting, failed, not delivered, running, not run:
the words of `step_words`); every surface renders its answer and derives nothing.
A run state may come from another tool or a hand edit, so every function takes
any dict and answers None (or a fact that says less) rather than raising.
"""

from __future__ import annotations

from typing import Any

from hwf_lsp.rules.graph import descendants, parents_of
from hwf_lsp.rules.plan import build_run_plan
from hwf_lsp.rules.step_words import (
    FINISHED_STEP_STATES,
    STEP_ANSWERED,
    STEP_DONE,
    STEP_FAILED,
    STEP_NOT_DELIVERED,
    STEP_NOT_RUN,
    STEP_REJECTED,
    STEP_REUSED,
    STEP_RUNNING,
    STEP_SKIPPED,
    STEP_WAITING,
    WHY_FALSE_CONDITION,
    WHY_HELD_BY_DEBUGGER,
    WHY_REJECTED_UPSTREAM,
    WHY_SKIPPED_PARENT,
    icon_of,
    stamp_seconds,
    step_label,
)
from hwf_lsp.rules.vocabulary import DEFAULT_APPROVAL_OPTIONS, RUN_STATUSES

WARNING_EVENT = "warning"
"""The run log's event for what a run must not keep silent: a condition that read a field
of text (`conditions.text_read`); a condition's facts carry it as `warning`."""
STEPS_KEY = "steps"
HELD_BEFORE_KEY = "stopped_before"
"""Under the run's `debug` key: the step a debugger holds the run before."""
"""Documented extra of a run (docs/run-state.md): `{step id: {started_at, ended_at,
attempts: [{error, at}], context}}`, what the runner records of each step it ran."""


_SHAPES: tuple[tuple[str, type, bool], ...] = (
    ("outputs", dict, True), ("skipped", list, True), ("answers", dict, False),
    ("deliveries", list, False), ("attempts", dict, False), ("log", list, False),
    (STEPS_KEY, dict, False),
)
"""(key, JSON type, required) of a run state's containers."""


def state_problem(state: Any) -> str | None:
    """Why `state` is not a run state the runner and every display can use, else None.

    One rule for the runner (which refuses to advance such a run) and the displays
    (`hwf runs`/`show`, the editor's run summaries show it as corrupt), so one malformed
    file never hides the others."""
    if not isinstance(state, dict):
        return f"expected a JSON object, got {type(state).__name__}"
    if not isinstance(state.get("run_id"), str):
        return "run_id must be a string"
    cursor = state.get("cursor")
    if isinstance(cursor, bool) or not isinstance(cursor, int) or cursor < 0:
        return "cursor must be a non-negative integer"
    status = state.get("status")
    if not isinstance(status, str) or status not in RUN_STATUSES:
        return f"unknown status {status!r}"[:120]
    for key, kind, required in _SHAPES:
        value = state.get(key)
        if (required or value is not None) and not isinstance(value, kind):
            return f"{key} must be a JSON {'object' if kind is dict else 'array'}"
    pending = state.get("pending")
    if pending is not None and not isinstance(pending, dict):
        return "pending must be an object or null"
    if status in ("awaiting_agent", "awaiting_approval") and pending is None:
        return f"status {status} without pending"
    if pending is not None and not (isinstance(pending.get("options"), list)
                                    or pending.get("options") is None):
        return "pending.options must be a JSON array"
    return None


def plan_of(state: dict[str, Any], design: Any = None) -> list[dict[str, Any]]:
    """The run's plan: from its `design` snapshot, else from `design` (the stored or open
    design of the same name, which is what the runner resumes with); [] when neither plans."""
    for candidate in (state.get("design"), design):
        if isinstance(candidate, dict) and candidate.get("nodes"):
            try:
                return build_run_plan(candidate)
            except Exception:  # noqa: BLE001 - a hand-edited snapshot must not break a reader
                continue
    return []


def failed_step(state: Any, design: Any = None) -> str | None:
    """The step a failed run failed at, as the runner records it; None unless `failed`.

    The runner's `_fail` is the only way a run becomes `failed`: it appends a log entry
    `{event: "failed", node: <step id>}` and leaves `cursor` on that step (the cursor is
    the index of the next step to run, and a failed step never ran to the end).  So:
    the node of the last `failed` log entry, else the plan step at the cursor (for runs
    without a log, e.g. written by another tool).  Attempts are not consulted: a
    condition that cannot be parsed fails with no attempt counted.
    """
    if not isinstance(state, dict) or state.get("status") != "failed":
        return None
    log = state.get("log")
    if isinstance(log, list):
        for entry in reversed(log):
            if isinstance(entry, dict) and entry.get("event") == "failed":
                node = entry.get("node")
                if isinstance(node, str) and node:
                    return node
    cursor = state.get("cursor")
    if not isinstance(cursor, int) or isinstance(cursor, bool) or cursor < 0:
        return None
    plan = plan_of(state, design)
    return plan[cursor]["id"] if cursor < len(plan) else None


def step_fact(state: dict[str, Any], step_id: str, failed: str | None = None,
              design: Any = None) -> dict[str, Any]:
    """The facts of one step (`step_facts`' entry); a step the run cannot plan is read
    from the state alone (no `running`, no skip reason through its parents)."""
    plan = plan_of(state, design)
    step = next((s for s in plan if s["id"] == step_id), {"id": step_id})
    reader = _Reader(state, failed, plan)
    for earlier in plan:  # a skip's reason goes back through the steps before it
        if earlier["id"] == step_id:
            break
        reader.fact(earlier, None)
    return reader.fact(step, None)


def approval_options(options: Any) -> list[str]:
    """The options an approval may be answered with: its own when they are a non-empty
    list of strings, else DEFAULT_APPROVAL_OPTIONS (what the runner parks it with)."""
    if isinstance(options, list) and options and all(isinstance(o, str) for o in options):
        return list(options)
    return list(DEFAULT_APPROVAL_OPTIONS)


def rerun_steps(state: dict[str, Any]) -> set[str] | None:
    """The steps a "run from here" run executes again: `from_node` and its descendants in
    the run's design snapshot (prepare_rerun's rule).  None for a run that reuses nothing
    (no `from_node`, or no `base_run` to reuse from), or without a snapshot."""
    from_node, design = state.get("from_node"), state.get("design")
    if not (isinstance(from_node, str) and isinstance(state.get("base_run"), str)
            and isinstance(design, dict) and isinstance(design.get("nodes"), list)):
        return None
    return {from_node} | descendants(design["nodes"], from_node)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


class _Reader:
    """One run state read once, for the facts of each of its steps in plan order."""

    def __init__(self, state: dict[str, Any], failed: str | None,
                 plan: list[dict[str, Any]]) -> None:
        self.state = state
        self.run_id = state.get("run_id")
        self.status = state.get("status")
        self.outputs = _dict(state.get("outputs"))
        self.skipped = set(s for s in _list(state.get("skipped")) if isinstance(s, str))
        self.answers = _dict(state.get("answers"))
        self.pending = _dict(state.get("pending"))
        self.records = _dict(state.get(STEPS_KEY))
        self.failed = failed
        self.rerun = rerun_steps(state)
        self.running = None
        cursor = state.get("cursor")
        if self.status == "running" and not was_interrupted(state) and isinstance(cursor, int):
            # the runner passes over steps that have their result (a run from here)
            self.running = next((s["id"] for s in plan[max(cursor, 0):]
                                 if s["id"] not in self.outputs
                                 and s["id"] not in self.skipped), None)
        self.held_before = _dict(state.get("debug")).get(HELD_BEFORE_KEY)
        """The step a debugger holds the run before (`hwf debug-adapter`), if any."""
        self.rejected_origin: set[str] = set()
        """Skipped steps whose skip goes back to a rejected approval."""

    def fact(self, step: dict[str, Any], rerun: bool | None) -> dict[str, Any]:
        step_id = step["id"]
        record = _dict(self.records.get(step_id))
        fact: dict[str, Any] = {"id": step_id, "type": _text(step.get("type")),
                                "title": _text(step.get("title"))}
        if step_id in self.skipped:
            self._skipped(fact, step)
        elif step_id in self.outputs:
            self._finished(fact, step)
        elif self.pending.get("node") == step_id and self.status in (
                "awaiting_agent", "awaiting_approval"):
            self._waiting(fact)
        elif self.failed == step_id:
            fact["status"] = STEP_FAILED
            fact["error"] = self.state.get("error")
        elif self.running == step_id and self.held_before == step_id:
            fact.update(status=STEP_NOT_RUN, why=WHY_HELD_BY_DEBUGGER)  # it has not started
        elif self.running == step_id:
            fact["status"] = STEP_RUNNING
        else:
            fact["status"] = STEP_NOT_RUN
        if self.rerun is not None and step_id not in self.rerun and fact["status"] in \
                FINISHED_STEP_STATES:
            fact["status"] = STEP_REUSED
            fact["base_run"] = self.state.get("base_run")
        attempts = self._attempts(step_id, record)
        if attempts:
            fact["attempts"] = attempts
        fact["started_at"] = _text(record.get("started_at"))
        in_flight = _dict(self.state.get("in_flight"))
        if fact["started_at"] is None and in_flight.get("node") == step_id:
            fact["started_at"] = _text(in_flight.get("since"))  # an agent command at work
        fact["ended_at"] = _text(record.get("ended_at"))
        waited = self._waited(step_id, fact["ended_at"])
        if waited:
            fact["waited_s"] = waited
        if rerun is not None:
            fact["rerun"] = rerun
        fact["icon"] = icon_of(fact["status"])
        fact["label"] = step_label(fact)
        return fact

    def _skipped(self, fact: dict[str, Any], step: dict[str, Any]) -> None:
        step_id = step["id"]
        if self.answers.get(step_id) == "reject":
            fact.update(status=STEP_REJECTED, answer="reject")
            self.rejected_origin.add(step_id)
            detail = self._log_detail(step_id, "answered")
        else:
            fact["status"] = STEP_SKIPPED
            parent = next((p for p in parents_of(step) if p in self.skipped), None)
            if parent is not None:
                fact["parent"] = parent  # which parent: "skipped parent" alone did not say
                upstream = parent in self.rejected_origin
                fact["why"] = WHY_REJECTED_UPSTREAM if upstream else WHY_SKIPPED_PARENT
                if upstream:
                    self.rejected_origin.add(step_id)
            elif step.get("type") == "condition":
                fact["why"] = WHY_FALSE_CONDITION
                warning = self._log_detail(step_id, WARNING_EVENT)
                if warning:  # it read a field of text: never silent
                    fact["warning"] = warning
            else:
                fact["why"] = None
            detail = self._log_detail(step_id, "skipped")
        if detail:
            fact["detail"] = detail

    def _finished(self, fact: dict[str, Any], step: dict[str, Any]) -> None:
        step_id = step["id"]
        if step_id in self.answers:
            fact.update(status=STEP_ANSWERED, answer=self.answers[step_id])
            return
        receipt = self._receipt(step_id)
        if receipt is not None:
            fact["target"] = _text(receipt.get("target"))
            if receipt.get("ok") is not True:
                fact.update(status=STEP_NOT_DELIVERED, error=receipt.get("error"))
                return
        fact["status"] = STEP_DONE

    def _waiting(self, fact: dict[str, Any]) -> None:
        kind = self.pending.get("kind")
        if kind not in ("agent", "approval"):
            kind = "approval" if self.status == "awaiting_approval" else "agent"
        fact.update(status=STEP_WAITING, waiting_for=kind,
                    since=_text(self.pending.get("waiting_since")))
        if kind == "approval":
            escalation = self._receipt(fact["id"], "escalation")
            fact["escalated"] = escalation is not None and escalation.get("ok") is True

    def _receipt(self, step_id: str, suffix: str | None = None) -> dict[str, Any] | None:
        """The last delivery receipt of the step (its own key, or `<key>:<suffix>`)."""
        key = f"{self.run_id}:{step_id}" + (f":{suffix}" if suffix else "")
        found = None
        for receipt in _list(self.state.get("deliveries")):
            if isinstance(receipt, dict) and receipt.get("key") == key:
                found = receipt
        return found

    def _attempts(self, step_id: str, record: dict[str, Any]) -> list[dict[str, Any]]:
        """The failed attempts with their errors: the runner's record, else the log's
        `attempt-failed`/`failed` entries (runs written before records were kept)."""
        recorded = [{"error": a.get("error"), "at": _text(a.get("at"))}
                    for a in _list(record.get("attempts")) if isinstance(a, dict)]
        if recorded or "attempts" in record:
            return recorded
        if not _dict(self.state.get("attempts")).get(step_id):
            return []
        return [{"error": entry.get("detail"), "at": _text(entry.get("at"))}
                for entry in _list(self.state.get("log"))
                if isinstance(entry, dict) and entry.get("node") == step_id
                and entry.get("event") in ("attempt-failed", "failed")]

    def _waited(self, step_id: str, ended_at: str | None) -> float | None:
        """Seconds the step sat parked (for an agent's response or an approval) before it
        went on: from each `parked` log entry to the step's next entry (or its end).  Not
        the time it ran: "done (1 min 15 s)" for an echo that parked is wrong (issue 47)."""
        waited, parked = 0.0, None
        for entry in _list(self.state.get("log")):
            if not isinstance(entry, dict) or entry.get("node") != step_id:
                continue
            at = stamp_seconds(entry.get("at"))
            if entry.get("event") == "parked":
                parked = at if parked is None else parked
            elif parked is not None and at is not None:
                waited += max(0.0, at - parked)
                parked = None
        end = stamp_seconds(ended_at)
        if parked is not None and end is not None:
            waited += max(0.0, end - parked)
        return waited or None

    def _log_detail(self, step_id: str, event: str) -> str | None:
        for entry in reversed(_list(self.state.get("log"))):
            if isinstance(entry, dict) and entry.get("node") == step_id \
                    and entry.get("event") == event:
                detail = entry.get("detail")
                return None if detail is None else str(detail)
        return None


def step_facts(state: dict[str, Any], design: Any = None) -> list[dict[str, Any]]:
    """What each step of the run did, in plan order: the one truth every surface renders.

    Each fact: `{id, type, title, status, icon, label, started_at, ended_at}` plus, by
    status: `answer` (answered, rejected), `why` and `detail` (skipped: `false condition`,
    `skipped parent`, `rejected upstream`; the runner's words), `parent` (skipped
    parent, rejected upstream: the skipped parent it follows), `warning` (a condition
    false because it read a field of text: what it read and what that cost), `waiting_for` (`agent` or
    `approval`), `since` and `escalated` (waiting), `error` (failed: the run's error;
    not delivered: the receipt's), `target` (a delivery's), `base_run` (reused),
    `attempts` (`[{error, at}]`, the failed attempts, whatever the status), `waited_s`
    (seconds it sat parked, when it did: its running time is the rest) and `rerun`
    (a run from here).  `design` plans a run without a snapshot (`plan_of`)."""
    if not isinstance(state, dict):
        return []
    plan = plan_of(state, design)
    reader = _Reader(state, failed_step(state, design), plan)
    return [reader.fact(step, None if reader.rerun is None else step["id"] in reader.rerun)
            for step in plan]


def progress_of(facts: list[dict[str, Any]]) -> tuple[int, int]:
    """(steps finished, steps in the plan): the one progress convention of every surface."""
    return sum(1 for f in facts if f.get("status") in FINISHED_STEP_STATES), len(facts)


def step_record(state: dict[str, Any], step_id: str) -> dict[str, Any]:
    """What the runner recorded of one step (`steps[step_id]`), `{}` when nothing."""
    return _dict(_dict(state.get(STEPS_KEY)).get(step_id))


def was_interrupted(state: Any) -> bool:
    """Whether the run's last advance stopped at an interrupt (it is resumable)."""
    log_entries = state.get("log") if isinstance(state, dict) else None
    return (isinstance(log_entries, list) and bool(log_entries)
            and isinstance(log_entries[-1], dict)
            and log_entries[-1].get("event") == "interrupted"
            and state.get("status") == "running")
