"""Everything a run knows of one step, for `hwf show RUN --step NODE` and `hwf.showStep`.

The step's facts (`run_facts.step_facts`: its state, why, its failed attempts, its
times) plus what is too big for a run summary: the context it was given, its full
output, its delivery receipts and its log.  One function, so the CLI and the editor
show the same detail.
"""

from __future__ import annotations

from typing import Any

from hwf_lsp.rules.run_facts import plan_of, step_facts, step_record
from hwf_lsp.rules.step_words import duration_text, seconds_text


def step_detail(state: dict[str, Any], node_id: str, design: Any = None) -> dict[str, Any]:
    """`{run_id, name, run_status, step, context, has_output, output, duration, deliveries,
    log}` for step `node_id` of the run (`step` is its run facts; `context` the rendered
    context it was given, `null` when it was given none or the run did not record it).

    ValueError when `node_id` is no step of the run's plan."""
    fact = next((f for f in step_facts(state, design) if f["id"] == node_id), None)
    if fact is None:
        steps = [s["id"] for s in plan_of(state, design)]
        raise ValueError(f"{node_id!r} is not a step of run {state.get('run_id')}"
                         + (f": its steps are {', '.join(steps)}" if steps else
                            " (the run has no design to plan it)"))
    record = step_record(state, node_id)
    context = record.get("context")
    pending = state.get("pending")
    if context is None and isinstance(pending, dict) and pending.get("node") == node_id:
        context = pending.get("context")
    outputs = state.get("outputs") if isinstance(state.get("outputs"), dict) else {}
    deliveries = state.get("deliveries") if isinstance(state.get("deliveries"), list) else []
    log = state.get("log") if isinstance(state.get("log"), list) else []
    return {
        "run_id": state.get("run_id"),
        "name": state.get("name"),
        "run_status": state.get("status"),
        "step": fact,
        "context": context if isinstance(context, str) else None,
        "has_output": node_id in outputs,
        "output": outputs.get(node_id),
        "duration": duration_text(fact.get("started_at"), fact.get("ended_at"),
                                  fact.get("waited_s")),
        "waited": seconds_text(fact["waited_s"]) if fact.get("waited_s") else None,
        "deliveries": [r for r in deliveries if isinstance(r, dict) and r.get("node") == node_id],
        "log": [e for e in log if isinstance(e, dict) and e.get("node") == node_id],
    }
