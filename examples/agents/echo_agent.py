#!/usr/bin/env python3
"""A tiny, deterministic example agent for `hwf run --agent-command`.

It speaks the agent-seam protocol: one JSON request on stdin
(prompt, context, profile, timeout_minutes, correlation_id, model?) and one JSON
answer on stdout ({"structured": ...} or {"output": ...}).  It never calls a model,
so demos and tests are repeatable.  Standard library only.

  - a prompt that mentions "review" or "score" gets a structured verdict:
    {"verdict": "approve", "score": 8, "issues": [...]};
  - any other prompt gets a short text that quotes the start of the prompt.

Environment knobs (all optional), for tests:
  HWF_AGENT_CALL_LOG=<file>  append one line per call: the request's correlation_id
  HWF_AGENT_SLEEP=<seconds>  sleep this long before answering (a slow agent)
  HWF_AGENT_FAIL=<n>         fail (exit 1) the first n calls; calls are counted by the
                             lines already in HWF_AGENT_CALL_LOG, so without a log every
                             call fails
  HWF_AGENT_SCORE=<n>        the score of a review (default 8)
"""

from __future__ import annotations

import json
import os
import sys
import time


def _previous_calls(log_path: str | None) -> int:
    if not log_path:
        return 0
    try:
        with open(log_path, encoding="utf-8") as log:
            return sum(1 for _ in log)
    except FileNotFoundError:
        return 0


def _log_call(log_path: str | None, correlation_id: str) -> None:
    if log_path:
        with open(log_path, "a", encoding="utf-8") as log:
            log.write(correlation_id + "\n")


def _context_of(request: dict) -> dict:
    """The parents' outputs: the seam sends them as a JSON object rendered to a string."""
    context = request.get("context")
    if isinstance(context, str):
        try:
            context = json.loads(context)
        except json.JSONDecodeError:
            return {}
    return context if isinstance(context, dict) else {}


def _answer(request: dict) -> dict:
    prompt = str(request.get("prompt", ""))
    lowered = prompt.lower()
    if "review" in lowered or "score" in lowered:
        score = int(os.environ.get("HWF_AGENT_SCORE", "8"))
        verdict = "approve" if score >= 7 else "revise"
        issues = ["'Fixes' lists one item twice"] if score >= 7 else [
            "Breaking changes are missing",
            "Two features have no description",
        ]
        return {"structured": {"verdict": verdict, "score": score, "issues": issues}}
    first_line = prompt.strip().splitlines()[0] if prompt.strip() else "(empty prompt)"
    if len(first_line) > 60:
        first_line = first_line[:57] + "..."
    parents = sorted(_context_of(request))
    seen = f" (context from: {', '.join(parents)})" if parents else ""
    return {"output": f"echo-agent did: {first_line}{seen}"}


def main() -> int:
    try:
        request = json.loads(sys.stdin.read() or "{}")
    except json.JSONDecodeError as exc:
        print(f"echo_agent: request is not JSON: {exc}", file=sys.stderr)
        return 2
    if not isinstance(request, dict):
        print("echo_agent: request must be a JSON object", file=sys.stderr)
        return 2
    log_path = os.environ.get("HWF_AGENT_CALL_LOG")
    calls_before = _previous_calls(log_path)
    _log_call(log_path, str(request.get("correlation_id", "")))
    delay = float(os.environ.get("HWF_AGENT_SLEEP", "0") or 0)
    if delay > 0:
        time.sleep(delay)
    fail_first = int(os.environ.get("HWF_AGENT_FAIL", "0") or 0)
    if fail_first > 0 and (not log_path or calls_before < fail_first):
        print(f"echo_agent: failing call {calls_before + 1} on purpose "
              f"(HWF_AGENT_FAIL={fail_first})", file=sys.stderr)
        return 1
    json.dump(_answer(request), sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
