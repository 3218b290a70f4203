"""`RunInfo`: the newest run of a design as the editor features read it (completion,
hover, hints, the `path-absent` warning): a value, built from a run state; the server
reads the run file (`server/runs/newest_runs.py`)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from hwf_lsp.rules.run_facts import failed_step, step_fact, step_facts
from hwf_lsp.rules.step_words import STEP_NOT_RUN


@dataclass(frozen=True, slots=True)
class RunInfo:
    """The parts of a run state the editor shows; `state` keeps the rest."""

    run_id: str
    name: str | None
    status: str | None
    outputs: dict[str, Any]
    skipped: tuple[str, ...]
    pending: dict[str, Any] | None
    error: Any
    updated_at: str | None
    path: str
    state: dict[str, Any] = field(repr=False, default_factory=dict)
    failed: str | None = None
    """The step a failed run failed at (`rules.run_facts.failed_step`), else None."""
    key: tuple[int, int, int] | None = None
    """The run file's (inode, mtime_ns, size) when it was read."""
    facts: dict[str, dict[str, Any]] = field(repr=False, default_factory=dict)
    """The engine's run facts (`rules.run_facts.step_facts`) by step id: what the
    editor shows of each step, read once per run file version."""

    @classmethod
    def from_state(cls, state: dict[str, Any], path: str,
                   key: tuple[int, int, int] | None = None) -> RunInfo:
        outputs = state.get("outputs")
        skipped = state.get("skipped")
        pending = state.get("pending")
        updated = state.get("updated_at")
        name = state.get("name")
        status = state.get("status")
        return cls(
            run_id=str(state.get("run_id", "")),
            name=name if isinstance(name, str) else None,
            status=status if isinstance(status, str) else None,
            outputs=outputs if isinstance(outputs, dict) else {},
            skipped=tuple(s for s in skipped if isinstance(s, str))
            if isinstance(skipped, list) else (),
            pending=pending if isinstance(pending, dict) else None,
            error=state.get("error"),
            updated_at=updated if isinstance(updated, str) else None,
            path=path,
            state=state,
            failed=failed_step(state),
            key=key,
            facts={fact["id"]: fact for fact in step_facts(state)},
        )

    def with_design(self, design: Any) -> RunInfo:
        """This run as `design` (the open or stored design of the same name) plans it, when
        the run has no design snapshot of its own: its step facts, and its failed step
        when it has no log to find it in either."""
        if self.facts:
            return self
        facts = {fact["id"]: fact for fact in step_facts(self.state, design)}
        failed = self.failed if self.failed is not None else failed_step(self.state, design)
        return replace(self, failed=failed, facts=facts) if facts else self

    def fact(self, node_id: str) -> dict[str, Any] | None:
        """The engine's facts of one step (`run_facts.step_facts`), None for a node that is
        no step of the run's plan.  A run no design plans is read from its state alone,
        and a step it says nothing about is None (it cannot tell a step from a note)."""
        if self.facts:
            return self.facts.get(node_id)
        fact = step_fact(self.state, node_id, self.failed)
        return None if fact["status"] == STEP_NOT_RUN else fact
