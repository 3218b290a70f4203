"""Delivery of an output step: a notification or the user's channel command, with receipts.

Every delivery carries an idempotency key `<run_id>:<node_id>`.  The runner
delivers first and persists the receipt after, so a crash in between means the
delivery is made again on resume (at least once, always with the same key: a
receiver that dedups by key sees it exactly once).  A key with an `ok: true`
receipt is never sent again.  A failed delivery is a receipt with `ok: false`;
it never fails the run.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from hwf_lsp.rules.strict_json import strict_dumps
from hwf_lsp.workflow.processes import CommandTimedOut, run_command

DEFAULT_CHANNEL_TIMEOUT_S = 30.0
DELIVERY_ENV = "HWF_DELIVERY_COMMAND"
"""The channel delivery command when none is given (`hwf`, the debugger)."""
ERROR_TAIL_CHARS = 500


def delivery_key(run_id: str, node_id: str, suffix: str | None = None) -> str:
    return f"{run_id}:{node_id}" + (f":{suffix}" if suffix else "")


def delivered_ok(state: dict[str, Any], key: str) -> bool:
    """Whether a receipt with ok: true exists for `key` (then it is never sent again)."""
    return any(
        isinstance(r, dict) and r.get("key") == key and r.get("ok") is True
        for r in state.get("deliveries") or ()
    )


def render_text(collected: Any) -> str:
    """The delivered text: a lone string output as itself, anything else as JSON."""
    if isinstance(collected, dict) and len(collected) == 1:
        (only,) = collected.values()
        if isinstance(only, str):
            return only
    return strict_dumps(collected, ensure_ascii=False, indent=2)


def _now_iso(clock: Callable[[], float]) -> str:
    return datetime.fromtimestamp(clock(), UTC).isoformat(timespec="milliseconds").replace(
        "+00:00", "Z"
    )


def _tail(text: str) -> str:
    text = text.strip()
    return text if len(text) <= ERROR_TAIL_CHARS else "..." + text[-ERROR_TAIL_CHARS:]


class Delivery:
    """Sends deliveries and writes receipts; configured by the user, never by a design."""

    def __init__(
        self,
        notify: Callable[[str], None] | None = None,
        channel_argv: list[str] | None = None,
        *,
        timeout_s: float = DEFAULT_CHANNEL_TIMEOUT_S,
    ) -> None:
        self.notify = notify
        self.channel_argv = list(channel_argv) if channel_argv else None
        self.timeout_s = timeout_s

    def send(
        self,
        *,
        deliver: str,
        text: str,
        run_id: str,
        node_id: str,
        key: str,
        target: str | None = None,
        clock: Callable[[], float],
    ) -> dict[str, Any]:
        """Make one delivery and return its receipt {key, node, deliver, target?, ok, error?, at}."""
        error = self._send(deliver, text, run_id, node_id, key, target)
        receipt: dict[str, Any] = {"key": key, "node": node_id, "deliver": deliver}
        if target is not None:
            receipt["target"] = target
        receipt["ok"] = error is None
        if error is not None:
            receipt["error"] = error
        receipt["at"] = _now_iso(clock)
        return receipt

    def _send(
        self, deliver: str, text: str, run_id: str, node_id: str, key: str, target: str | None
    ) -> str | None:
        if deliver == "notification":
            if self.notify is None:
                return "no notification sink configured"
            try:
                self.notify(text)
            except Exception as exc:  # noqa: BLE001 - a failed delivery never fails the run
                return f"notification failed: {type(exc).__name__}: {exc}"
            return None
        if deliver == "channel":
            if self.channel_argv is None:
                return "no channel command configured"
            payload = {"target": target, "text": text, "run_id": run_id, "node_id": node_id,
                       "key": key}
            try:  # ends when the command exits; its process group is killed then
                done = run_command(
                    self.channel_argv,
                    strict_dumps(payload, ensure_ascii=False).encode("utf-8"),
                    timeout_s=self.timeout_s, stdout_limit=0,
                )
            except CommandTimedOut:
                return f"channel command timed out after {self.timeout_s:g} s"
            except OSError as exc:
                return f"cannot start channel command {self.channel_argv[0]!r}: {exc}"
            if done.returncode != 0:
                detail = _tail(done.stderr_tail.decode("utf-8", errors="replace"))
                how = (f"was killed by signal {-done.returncode}" if done.returncode < 0
                       else f"exited with status {done.returncode}")
                return f"channel command {how}" + (f": {detail}" if detail else "")
            return None
        return f"unknown delivery kind {deliver!r}"


def channel_argv_from_env(command: str | None) -> list[str] | None:
    """The channel command given (`--delivery-command`, the debugger's `deliveryCommand`),
    else $HWF_DELIVERY_COMMAND, split like a shell would (never run by one); None: no
    channel.  ValueError for unbalanced quotes."""
    if not command:
        command = os.environ.get(DELIVERY_ENV) or None
    argv = shlex.split(command) if command else None
    return argv or None
