"""End to end, offline: the real `hermes` CLI against a scripted OpenAI-compatible server.

- `hermes -z` validates, saves and starts a design through the tools, performs the
  parked agent step itself (`workflow_design_respond`); `hwf answer` finishes the run.
- A run started by `hwf run` parks at its agent step; `hermes cron run` performs it
  with `workflow_design_respond`; `hermes -z` answers its approval.
- Each time the run file is the one `hwf show` prints and the language server's
  `hwf.listRuns` reports.

Set HWF_TRANSCRIPT=FILE to keep the chat transcript of the first test (README.md).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from conftest import HWF, hermes_env
from designs import review
from fake_openai import FakeOpenAI
from lsp_client import execute_command
from scripted import ToolPlan, call, hermes

from hwf_lsp.hermes.prompts import cron_prompt
from hwf_lsp.hermes.tools import AGENT_STEPS_TOOLS, TOOL_NAMES
from hwf_lsp.workflow.run_summary import run_summary
from hwf_lsp.workflow.stores import RunStore

pytestmark = pytest.mark.timeout(600)

def hwf(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([HWF, *args], capture_output=True, text=True, timeout=120,
                          env=hermes_env(home))


def tool_calls_made(fake: FakeOpenAI) -> list[str]:
    messages = fake.requests[-1]["messages"]
    return [c["function"]["name"] for m in messages for c in m.get("tool_calls") or ()]


def assert_everyone_sees_the_same_run(home: Path, run_id: str) -> dict[str, Any]:
    runs = RunStore.at_home(home)
    on_disk = runs.load(run_id)
    shown = hwf(home, "show", run_id, "--json")
    assert shown.returncode == 0 and json.loads(shown.stdout) == on_disk
    listed = execute_command(home, "hwf.listRuns", [])["runs"]
    (summary,) = [r for r in listed if r["run_id"] == run_id]
    assert summary == run_summary(on_disk, runs.root)
    return on_disk


def transcript(fake: FakeOpenAI, prompt: str, answer: str, home: Path) -> str:
    def clip(text: str, limit: int = 240) -> str:
        return text if len(text) <= limit else text[:limit] + "…"

    lines = [f"$ hermes -z {prompt!r}"]
    for message in fake.requests[-1]["messages"]:
        for tool_call in message.get("tool_calls") or ():
            lines.append(f"  → {tool_call['function']['name']} "
                         f"{clip(tool_call['function']['arguments'])}")
        if message.get("role") == "tool":
            answer_ = json.loads(message["content"])
            if "status" in answer_:  # a run summary: its status and what the model is told
                shown = {k: answer_[k] for k in ("run_id", "status", "instructions")
                         if k in answer_}
                lines.append(f"  ← {{…run summary… {json.dumps(shown)[1:]}")
            else:
                lines.append(f"  ← {clip(message['content'])}")
    lines.append(answer.strip())
    return "\n".join(lines).replace(str(home), "~/.hermes")


CHAT_PROMPT = "Check my release-notes workflow, save it as review and run it."


def test_chat_starts_a_run_and_hwf_answers_it(fake: FakeOpenAI, hermes_home: Path) -> None:
    design = review()
    fake.script = ToolPlan(
        lambda _: call("workflow_design_validate", design=design),
        lambda _: call("workflow_design_save", name="review", design=design),
        lambda _: call("workflow_design_run", name="review"),
        lambda parked: call("workflow_design_respond", run_id=parked["run_id"],
                            output="v2: faster start-up, smaller installs"),
        lambda waiting: {"content": f"Run {waiting['run_id']} drafted the notes and waits "
                         f"for your approval at 'gate': ship or hold?"},
    )
    answer = hermes(hermes_home, "-z", CHAT_PROMPT).stdout
    assert tool_calls_made(fake) == ["workflow_design_validate", "workflow_design_save",
                                     "workflow_design_run", "workflow_design_respond"]
    offered = {t["function"]["name"] for t in fake.requests[0]["tools"]}
    assert set(TOOL_NAMES) <= offered
    assert {r["model"] for r in fake.requests} == {fake.model}  # not the design's big-model
    run_id = re.search(r"Run ([0-9a-f]{12})", answer).group(1)
    state = assert_everyone_sees_the_same_run(hermes_home, run_id)
    assert state["status"] == "awaiting_approval"
    assert state["outputs"]["draft"] == "v2: faster start-up, smaller installs"
    if os.environ.get("HWF_TRANSCRIPT"):
        Path(os.environ["HWF_TRANSCRIPT"]).write_text(transcript(fake, CHAT_PROMPT, answer,
                                                                  hermes_home))

    finished = hwf(hermes_home, "answer", run_id, "ship")
    assert finished.returncode == 0, finished.stderr
    assert assert_everyone_sees_the_same_run(hermes_home, run_id)["status"] == "completed"


def test_cron_performs_the_agent_step_of_an_hwf_run_and_chat_answers(
        fake: FakeOpenAI, hermes_home: Path, tmp_path: Path) -> None:
    design_file = tmp_path / "review.hwf.json"
    design_file.write_text(json.dumps(review()))
    started = hwf(hermes_home, "run", str(design_file))
    assert started.returncode == 3, started.stderr  # parked at the agent step
    run_id = started.stdout.split()[1]

    prompt = hwf(hermes_home, "hermes", "cron-prompt", run_id).stdout.strip()
    assert prompt == cron_prompt(run_id)
    created = hermes(hermes_home, "workflow", "cron", "every 1h", run_id)
    job_id = re.search(r"Created job: (\S+)", created.stdout).group(1)
    (job,) = json.loads((hermes_home / "cron" / "jobs.json").read_text())["jobs"]
    assert (job["name"], job["prompt"]) == (f"workflow review {run_id}", prompt)
    assert job["enabled_toolsets"] == ["visual_workflow_agent_steps", "no_mcp"]
    fake.script = ToolPlan(
        lambda _: call("workflow_run_show", run_id=run_id),
        lambda shown: call("workflow_design_respond", run_id=shown["run"]["run_id"],
                           output=f"notes for: {shown['run']['pending']['prompt']}"),
        lambda summary: {"content": f"{summary['run_id']} review {summary['status']}"},
    )
    ran = hermes(hermes_home, "cron", "run", job_id)
    assert "Ran now: succeeded" in ran.stdout, ran.stdout
    assert tool_calls_made(fake) == ["workflow_run_show", "workflow_design_respond"]
    offered = sorted(t["function"]["name"] for t in fake.requests[0]["tools"])
    print(f"\ncron job toolsets {job['enabled_toolsets']}: the session is offered {offered}")
    # read and respond only: no design save, no run, no terminal, files, code, delegation
    assert offered == sorted(AGENT_STEPS_TOOLS)
    cron_session = fake.requests[-1]["messages"]
    assert any("workflow_design_respond" in str(m.get("content")) for m in cron_session
               if m.get("role") in ("user", "system"))
    state = assert_everyone_sees_the_same_run(hermes_home, run_id)
    assert state["status"] == "awaiting_approval"
    assert state["outputs"]["draft"] == "notes for: Draft release notes for v2"

    fake.script = ToolPlan(
        lambda _: call("workflow_design_answer", run_id=run_id, choice="ship"),
        lambda summary: {"content": f"Shipped: run {summary['run_id']} is {summary['status']}."},
    )
    answer = hermes(hermes_home, "-z", f"Ship run {run_id}.").stdout
    assert "is completed" in answer
    assert assert_everyone_sees_the_same_run(hermes_home, run_id)["answers"] == {"gate": "ship"}
