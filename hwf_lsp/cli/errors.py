"""What every `hwf` subcommand shares: exit codes and the one-line error.

The exit codes are part of the CLI's contract (docs/cli.md). Scripts branch on
them, for example "3 means the run waits for someone", so they never change meaning.
"""

from __future__ import annotations

import json
import sys
from typing import Any

EXIT_OK = 0
"""The command did what was asked; a run it advanced is completed."""
EXIT_FAILED = 1
"""`check` found defects (or `run` was given a design with defects), or the run it
advanced failed or was cancelled."""
EXIT_USAGE = 2
"""Bad arguments or bad input: unknown run id, unreadable file, invalid design, bad JSON."""
EXIT_PARKED = 3
"""The run it advanced is parked: awaiting an approval or an agent's response."""
EXIT_BUSY = 4
"""Another runner holds the run's lock; nothing was changed."""

EXIT_CODES_HELP = """\
exit codes:
  0  ok: no defects / the run completed / the command succeeded
  1  defects found (check, or the design given to run) / the run failed or was cancelled
  2  usage error or bad input (unreadable or non-JSON file, unknown run id, wrong choice)
  3  the run is parked: it waits for an approval (hwf answer) or an agent (hwf respond)
  4  the run is busy: another runner is advancing it; try again"""


class CliError(Exception):
    """A failure to report as one line on stderr, with the exit code to return."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


def err(message: str) -> None:
    """One line on stderr (notifications and errors go there, results to stdout)."""
    print(message, file=sys.stderr, flush=True)


def out(message: str = "") -> None:
    print(message, flush=True)


def json_text(value: Any) -> str:
    """Indented strict JSON for stdout; escaped to ASCII when the terminal can't take UTF-8.
    A value holding NaN or Infinity (a run file another tool wrote) -> CliError."""
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "")
    try:
        return json.dumps(value, ensure_ascii=encoding not in ("utf8", "utf8sig"), indent=2,
                          allow_nan=False)
    except ValueError:
        raise CliError("it holds NaN or Infinity, which are not JSON numbers: not printed "
                       "as JSON") from None
