"""`hermes workflow agent`: an agent command (the agent-seam protocol, docs/cli.md) that
performs one step with the user's Hermes model, through the host's PluginLlm facade.

`hwf run … --agent-command "hermes workflow agent"` and the editor start it once per
attempt: one JSON object on stdin (`prompt`, `context`, `profile`, `timeout_minutes`,
`correlation_id`, `model`?), the result on stdout (`{"output": …}` or
`{"structured": …}`), exit 1 with the reason on stderr for a failed attempt.

The step goes to `ctx.llm.complete` with the host's configuration (its model, provider,
credentials). `model` is passed on only when this home's trust gate permits it (the gate
`hwf` reads too, and the one PluginLlm enforces); a provider never is.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from hwf_lsp.hermes.host_seams import PluginLlmSeam
from hwf_lsp.rules.strict_json import NotStrictJson
from hwf_lsp.rules.vocabulary import TIMEOUT_MINUTES
from hwf_lsp.workflow.json_values import admit
from hwf_lsp.workflow.seams import AgentFailure, AgentRequest
from hwf_lsp.workflow.trust import read_model_gate

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class BadRequest(ValueError):
    """Stdin is not the protocol's request object."""


def _optional_text(value: dict[str, Any], key: str) -> str | None:
    item = value.get(key)
    if item is not None and not isinstance(item, str):
        raise BadRequest(f"'{key}' must be a string")
    return item


def parse_request(text: str) -> AgentRequest:
    """The stdin object as an AgentRequest (its `model` as asked; the gate is applied later)."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise BadRequest(f"stdin is not JSON: {exc}") from None
    if not isinstance(value, dict) or not isinstance(value.get("prompt"), str):
        raise BadRequest("stdin must be a JSON object with a string 'prompt'")
    minutes = value.get("timeout_minutes")
    if minutes is not None and (isinstance(minutes, bool) or not isinstance(minutes, int)
                                or not TIMEOUT_MINUTES.minimum <= minutes <= TIMEOUT_MINUTES.maximum):
        raise BadRequest(f"'timeout_minutes' must be a whole number from "
                         f"{TIMEOUT_MINUTES.minimum} to {TIMEOUT_MINUTES.maximum} (as a "
                         "node's timeout_minutes is)")
    return AgentRequest(
        prompt=value["prompt"], context=_optional_text(value, "context") or "{}",
        profile=_optional_text(value, "profile"), timeout_minutes=minutes,
        correlation_id=_optional_text(value, "correlation_id") or "workflow:agent",
        model=_optional_text(value, "model"))


def gated(request: AgentRequest, home: Path, warn: Callable[[str], None]) -> AgentRequest:
    """`request` with its `model` dropped unless this home's trust gate permits it."""
    if request.model is None:
        return request
    gate = read_model_gate(home)
    if not gate.permits(request.model):
        warn(f"model {request.model!r} not passed on: {gate.reason}")
        request.model = None
    return request


def run_agent_command(home: Path, llm: Any, stdin: IO[str] | None = None,
                      stdout: IO[str] | None = None, stderr: IO[str] | None = None) -> int:
    """One step: read the request, perform it through `llm`, print the result; exit code."""
    stdin, stdout, stderr = stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr

    def warn(message: str) -> None:
        print(f"hermes workflow agent: {message}", file=stderr)

    try:
        request = gated(parse_request(stdin.read()), home, warn)
    except BadRequest as exc:
        warn(f"error: {exc}")
        return EXIT_USAGE
    try:
        result = PluginLlmSeam(llm).perform(request)
    except AgentFailure as exc:
        warn(f"error: {exc}")
        return EXIT_FAILED
    try:  # strict JSON, lone surrogates (a cut emoji) replaced as in a run's values
        answer = admit(result)
    except NotStrictJson as exc:
        warn(f"error: the model's answer {exc}")
        return EXIT_FAILED
    for _event, note in answer.notes("the model's answer"):
        warn(note)
    print(json.dumps(answer.value, ensure_ascii=False, allow_nan=False), file=stdout)
    return EXIT_OK
