"""`hermes workflow cron SCHEDULE [RUN_ID]`: the cron job that performs parked agent steps,
created through the host's own cron code with the narrowest toolsets it supports.

Hermes' cron (`cron/scheduler.py` `_resolve_cron_enabled_toolsets`) gives a job's session
the job's `enabled_toolsets` when it has them, plus every enabled MCP server unless the
list holds the sentinel `no_mcp`; without them, every tool the `cron` platform has (36 in
a default 0.19.0 install: terminal, write_file, execute_code, delegate_task, …). `hermes
cron create` sets no toolsets; the host's `cronjob` tool function (what that command
calls) takes them. So the job is created with `[visual_workflow_agent_steps, no_mcp]`: its
session can list and show runs and respond to a parked agent step, and nothing else (no
design save, no run start, no answer, no cancel). Widen it on purpose with `--toolsets`
(docs/hermes.md, "Cron").
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hwf_lsp.hermes.prompts import cron_prompt
from hwf_lsp.hermes.tools import AGENT_STEPS_TOOLSET
from hwf_lsp.workflow.stores import RunStore

NO_MCP = "no_mcp"
CRON_TOOLSETS = (AGENT_STEPS_TOOLSET, NO_MCP)


def job_name(home: Path, run_id: str | None) -> str:
    """`workflow <design> <run_id>` for one run (its design as the run file names it), else
    `workflow agent steps`: a name that says what the job does, not the prompt's start."""
    if run_id is None:
        return "workflow agent steps"
    try:
        design = RunStore.at_home(home).load(run_id).get("name")
    except (FileNotFoundError, ValueError):
        design = None
    return f"workflow {design} {run_id}" if isinstance(design, str) and design else \
        f"workflow {run_id}"


def create_cron_job(home: Path, schedule: str, run_id: str | None = None, *,
                    name: str | None = None, deliver: str | None = None,
                    toolsets: tuple[str, ...] = CRON_TOOLSETS) -> dict[str, Any]:
    """Create the job through the host's `cronjob` tool function; its answer, parsed."""
    from tools.cronjob_tools import cronjob

    answer = json.loads(cronjob(
        action="create", schedule=schedule, prompt=cron_prompt(run_id),
        name=name or job_name(home, run_id), deliver=deliver,
        enabled_toolsets=list(toolsets)))
    return answer if isinstance(answer, dict) else {"error": f"unexpected answer {answer!r}"}
