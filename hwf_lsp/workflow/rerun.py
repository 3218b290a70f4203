"""Run from here: re-run one step and everything downstream, reusing an earlier run upstream.

The new run copies `outputs`/`skipped` (and approval answers) from a base run for
every step outside {X and its descendants}.  Its cursor starts at 0: the runner
passes over every step that already has a result, so only X, its descendants and
any step the base run never reached actually execute (docs/run-state.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from hwf_lsp.rules.graph import ancestors, descendants
from hwf_lsp.rules.vocabulary import fields_for
from hwf_lsp.workflow.runner import check_startable, iso_utc, new_run_state, run_name
from hwf_lsp.workflow.stores import RunStore

IGNORED_FOR_STALENESS = frozenset({"title"})
"""Fields that do not change what a step computes; layout keys are ignored as unknown fields."""


def _has_result(state: dict[str, Any], node_id: str) -> bool:
    outputs = state.get("outputs")
    skipped = state.get("skipped")
    return (isinstance(outputs, dict) and node_id in outputs) or (
        isinstance(skipped, list) and node_id in skipped
    )


def _definition(design: Any, node_id: str) -> dict[str, Any] | None:
    """The fields of `node_id` that decide what it computes (known fields, minus title)."""
    nodes = design.get("nodes") if isinstance(design, dict) else None
    for node in nodes if isinstance(nodes, list) else ():
        if isinstance(node, dict) and node.get("id") == node_id:
            known = {f.name for f in fields_for(str(node.get("type")))} - IGNORED_FOR_STALENESS
            return {k: v for k, v in node.items() if k in known}
    return None


def stale_ancestors(base: dict[str, Any], design: dict[str, Any], upstream: list[str]) -> list[str]:
    """Ancestors whose definition differs between the base run's snapshot and `design`."""
    snapshot = base.get("design")
    return [a for a in upstream if _definition(snapshot, a) != _definition(design, a)]


def prepare_rerun(
    runs: RunStore,
    design: dict[str, Any],
    from_node: str,
    *,
    name: str | None = None,
    base_run_id: str | None = None,
    clock: Callable[[], float] = time.time,
) -> tuple[dict[str, Any], list[str]]:
    """A new persisted (not advanced) run of `design` from `from_node`, and notices for the user."""
    name = run_name(design, name)
    plan = check_startable(design, f"design {name!r}")
    step_ids = [step["id"] for step in plan]
    if from_node not in step_ids:
        raise ValueError(
            f"cannot run from {from_node!r}: not a step of design {name!r} "
            f"(steps: {', '.join(step_ids)})"
        )
    nodes = design["nodes"]
    downstream = {from_node} | descendants(nodes, from_node)
    upstream = [s for s in step_ids if s in ancestors(nodes, from_node)]
    base = _base_run(runs, name, from_node, upstream, base_run_id)
    state = new_run_state(runs.new_run_id(), name, design, clock())
    state["base_run"] = base["run_id"] if base else None
    state["from_node"] = from_node
    state["stale"] = []
    if base is None:
        notices = [
            f"no earlier run of {name!r} has a result for every step upstream of "
            f"{from_node!r}: running from the beginning"
        ]
    else:
        reused = _reuse(state, base, [s for s in step_ids if s not in downstream])
        notices = [f"running from {from_node!r}, reusing {len(reused)} step result"
                   f"{'s' if len(reused) != 1 else ''} of run {base['run_id']}",
                   *_staleness(state, base, design, upstream)]
    state["log"].append({"at": iso_utc(clock()), "node": from_node, "event": "created",
                         "detail": "; ".join(notices)})
    runs.save(state)
    return state, notices


def _base_run(runs: RunStore, name: str, from_node: str, upstream: list[str],
              base_run_id: str | None) -> dict[str, Any] | None:
    """The run whose upstream results are reused: the one asked for (ValueError when it
    lacks one), else the newest with a result for every upstream step, else None."""
    if base_run_id is not None:
        base = runs.load(base_run_id)
        missing = [a for a in upstream if not _has_result(base, a)]
        if missing:
            raise ValueError(
                f"run {base_run_id} cannot be the base of a run from {from_node!r}: "
                f"it has no result for {', '.join(missing)}"
            )
        return base
    candidates = runs.recent(
        1, design=name, where=lambda s: all(_has_result(s, a) for a in upstream)
    )
    return candidates[0] if candidates else None


def _reuse(state: dict[str, Any], base: dict[str, Any], before: list[str]) -> list[str]:
    """Copy into `state` the base run's outputs, skips and answers of the steps `before` the
    rerun that have a result there; those steps."""
    reused = [step for step in before if _has_result(base, step)]
    for step in reused:
        if step in base["outputs"]:
            state["outputs"][step] = base["outputs"][step]
        if step in base.get("skipped", []):
            state["skipped"].append(step)
        if step in (base.get("answers") or {}):
            state["answers"][step] = base["answers"][step]
    return reused


def _staleness(state: dict[str, Any], base: dict[str, Any], design: dict[str, Any],
               upstream: list[str]) -> list[str]:
    """Flag in `state` the reused upstream outputs whose step changed since the base run;
    a notice for each, or one saying the base run cannot tell."""
    if isinstance(base.get("design"), dict):
        state["stale"] = stale_ancestors(base, design, upstream)
        return [f"output of {step} reused from run {base['run_id']} may be stale: "
                f"{step} changed since" for step in state["stale"]]
    if upstream:
        return [f"run {base['run_id']} has no design snapshot: cannot tell whether the "
                "reused upstream outputs are stale"]
    return []
