"""The debug console (DAP `evaluate`): answer a parked approval, give a parked agent its
result, read or change outputs, test a condition.

    answer <option>            answer the approval the run waits for
    respond <JSON or text>     give the agent step the run waits for its result
                               (JSON that is no string is its structured result)
    out.<node>[.<path>]        the value of an output (or part of it); a bare node id
                               is its output
    out.<node>.<path> <op> <literal>   a condition, evaluated as the run would
    set out.<node>[.<path>] <JSON or text>   change an output (as setVariable does)
    status                     the run: id, status, file
    help                       this text
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hwf_lsp.debug.driver import RunDriver
from hwf_lsp.debug.values import lookup, parse_given, parse_reference, shown
from hwf_lsp.rules.conditions import ConditionError, evaluate, parse_condition
from hwf_lsp.rules.run_facts import approval_options

HELP = textwrap.dedent(__doc__.split("\n\n", 1)[1]).strip()


class ReplError(ValueError):
    """A console command that cannot be done; the message says why and what to type."""


@dataclass
class ReplResult:
    text: str
    value: Any = None
    """An output's value, for the client to expand (None: nothing to expand)."""
    resume: Callable[[], None] | None = None
    """What moves the parked run on, done once the response is sent (the client is told
    it continued)."""


def run_command(line: str, driver: RunDriver | None) -> ReplResult:
    """Do one console line; ReplError when it cannot be done."""
    line = line.strip()
    word, _, rest = line.partition(" ")
    if word in ("", "help", "?"):
        return ReplResult(HELP)
    if driver is None:
        raise ReplError("no run yet: launch a design first")
    if word == "answer":
        return _answer(rest.strip(), driver)
    if word == "respond":
        return _respond(rest.strip(), driver)
    if word == "set":
        return _set(rest.strip(), driver)
    if word == "status":
        state = driver.state
        return ReplResult(f"run {state.get('run_id')} of {state.get('name')}: "
                          f"{state.get('status')} ({driver.runs.path(driver.run_id)})")
    return _read(line, driver.state.get("outputs") or {})


def _parked_at(driver: RunDriver, status: str, what: str) -> dict[str, Any]:
    stop = driver.stop
    pending = driver.state.get("pending") or {}
    if stop is None or not stop.parked or driver.state.get("status") != status:
        raise ReplError(f"the run is not waiting for {what}")
    return pending


def _answer(choice: str, driver: RunDriver) -> ReplResult:
    pending = _parked_at(driver, "awaiting_approval", "an approval")
    options = approval_options(pending.get("options"))
    if choice not in options:
        raise ReplError(f"answer one of: {', '.join(options)} (e.g. answer {options[0]})")
    return ReplResult(f"{pending.get('node')}: answered {choice!r}",
                      resume=lambda: driver.answer(choice))


def _respond(given: str, driver: RunDriver) -> ReplResult:
    pending = _parked_at(driver, "awaiting_agent", "an agent")
    if not given:
        raise ReplError('respond needs the result: respond {"score": 9} or respond some text')
    value = parse_given(given)
    structured = not isinstance(value, str)
    return ReplResult(f"{pending.get('node')}: responded with "
                      f"{'structured ' if structured else ''}{shown(value, 200)}",
                      resume=lambda: driver.respond(value, structured))


def _set(rest: str, driver: RunDriver) -> ReplResult:
    target, _, given = rest.partition(" ")
    reference = parse_reference(target)
    if reference is None or not given.strip():
        raise ReplError("usage: set out.<node>[.<path>] <JSON or text>")
    value = parse_given(given.strip())
    try:
        old = driver.pin_output(reference[0], reference[1], value)
    except ValueError as exc:
        raise ReplError(str(exc)) from None
    return ReplResult(f"{target}: {shown(old, 200)} -> {shown(value, 200)}")


def _read(line: str, outputs: dict[str, Any]) -> ReplResult:
    bare = line.strip('"')
    if bare in outputs:  # a node id (what an editor sends for a hover): its output
        return ReplResult(shown(outputs[bare]), outputs[bare])
    reference = parse_reference(line)
    if reference is not None:
        found, value = lookup(outputs, *reference)
        if not found:
            raise ReplError(f"{line}: no value in this run")
        return ReplResult(shown(value), value)
    try:
        condition = parse_condition(line)
    except ConditionError as exc:
        raise ReplError(f"{line!r}: not a command, an output or a condition ({exc.msg}); "
                        "type help") from None
    result, reason = evaluate(condition, outputs)
    return ReplResult(("true" if result else "false") + (f" ({reason})" if reason else ""))
