"""What the plugin tells a model: how to move a parked run on, and the cron prompt.

In Hermes 0.19.0 no child agent can be launched from a tool call, so a chat run
parks at its agent steps. The chat model (or a fresh cron session) is then the
performer: it does the step's prompt with the step's context and hands the
result back with `workflow_design_respond`. Approvals are a person's to answer.
"""

from __future__ import annotations

import json
from typing import Any

from hwf_lsp.workflow.run_facts import approval_options

PREVIEW_CHARS = 4000


def _clip(text: str, limit: int = PREVIEW_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def instructions_for(state: dict[str, Any]) -> str | None:
    """The next step for the chat model when `state` is parked, else None."""
    pending = state.get("pending") if isinstance(state.get("pending"), dict) else None
    run_id, status = state.get("run_id"), state.get("status")
    if pending is None:
        return None
    if status == "awaiting_agent":
        context = pending.get("context") or "{}"
        return (
            f"Run {run_id} waits for an agent at step {pending.get('node')!r} "
            f"({pending.get('correlation_id')}). Perform this step yourself now. Its prompt: "
            f"{_clip(str(pending.get('prompt', '')))!r}. The outputs of the steps before it "
            f"(JSON, by step id): {_clip(str(context))}. Then call workflow_design_respond "
            f"with {{\"run_id\": \"{run_id}\", \"output\": <your result as text>}} (or "
            "\"structured\": <a JSON value> when the result is data). Do not ask the user "
            "to do it."
        )
    if status == "awaiting_approval":
        options = approval_options(pending.get("options"))
        return (
            f"Run {run_id} waits for approval at {pending.get('node')!r}: "
            f"{pending.get('question', '')!r}. Ask the user to choose one of "
            f"{json.dumps(options)}, then call workflow_design_answer with "
            f"{{\"run_id\": \"{run_id}\", \"choice\": <their choice>}}. Never choose for them."
        )
    return None


def cron_prompt(run_id: str | None = None) -> str:
    """The prompt of a Hermes cron job that performs parked agent steps (docs/hermes.md)."""
    if run_id is None:
        find = ("Call workflow_runs with {\"status\": \"awaiting_agent\"} to find every "
                "Hermes Workflow run that waits for an agent.")
        scope = "each of those runs"
    else:
        find = (f"Call workflow_run_show with {{\"run_id\": \"{run_id}\"}} to see Hermes "
                f"Workflow run {run_id}.")
        scope = f"run {run_id} (and no other run)"
    return (
        "You perform the parked agent steps of Hermes Workflow runs (plugin visual-workflow). "
        f"{find} For {scope}, while its status is awaiting_agent: read pending.prompt and "
        "pending.context (the outputs of the steps before it, JSON by step id), perform that "
        "prompt yourself, then call workflow_design_respond with the run_id and your result "
        "as \"output\" (text) or \"structured\" (a JSON value). The answer is the run's new "
        "summary; if it waits for another agent step, perform that one the same way. Leave "
        "runs that wait for an approval alone: approvals are for a person. Finish with one "
        "line per run you touched: run id, design name and status."
    )
