"""What every `hwf` subcommand shares: exit codes and the one-line error.

The exit codes are part of the CLI's contract (docs/cli.md). Scripts branch on
them, for example "3 means the run waits for someone", so they never change meaning.
"""

from __future__ import annotations

import io
import json
import os
import re
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
  0  ok: no defects / every design test passed / the run completed / the command succeeded
  1  defects found (check, or the design given to run) / a design test case failed /
     the run failed or was cancelled
  2  usage error or bad input (unreadable or non-JSON file, invalid design test file,
     unknown run id, wrong choice)
  3  the run is parked: it waits for an approval (hwf answer) or an agent (hwf respond)
  4  the run is busy: another runner is advancing it; try again
  128+N  a run being advanced was interrupted by signal N (130: Ctrl-C); it is resumable
  141  stdout's reader left early (`hwf runs | head -1`); nothing else went wrong"""


class CliError(Exception):
    """A failure to report as one line on stderr, with the exit code to return."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


_UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f"
                     "\u202a-\u202e\u2066-\u2069]")
"""What a terminal acts on instead of showing: C0 controls but tab (ESC starts sequences
such as an OSC 52 clipboard write; a newline could fake a `next:` line), DEL, C1 (CSI),
Unicode line separators and bidirectional overrides (text that reads differently)."""
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e"
                          "\u2066-\u2069]")
"""The same, minus the C0 controls json.dumps escapes already."""
_NAMED = {"\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    return _NAMED.get(char) or (f"\\x{ord(char):02x}" if ord(char) < 0x100
                                else f"\\u{ord(char):04x}")


def printable(text: str) -> str:
    """`text` with everything a terminal would act on written as an escape (`\\x1b`,
    `\\n`), so a design's question, an option, an output or an error message shows as
    text and can never drive the terminal or fake a line."""
    return _UNSAFE.sub(_escape, text)


def leading_path(path: str) -> str:
    """`path` as the start of an output line: a relative path whose line would begin
    (after blanks) with `::`, the GitHub Actions workflow-command prefix, gets `./` (the
    same file), so a file named `::error::…` is shown, never acted on by a CI runner."""
    return f"./{path}" if path.lstrip().startswith("::") else path


EXIT_READER_LEFT = 141
"""`hwf runs | head -1`: the reader closed stdout early.  128 + SIGPIPE, what the shell
reports for `cat`, `grep` or any program SIGPIPE ended: a script (with `set -o pipefail`)
sees what it sees for them, and 0 would claim all the output was written.  Nothing is
printed about it, and a run being advanced goes on to its end."""


class ReaderLeft(io.TextIOBase):
    """`sys.stdout` once its reader has gone (the fact lives on the stream): output dropped."""

    def write(self, text: str) -> int:
        return len(text)


def reader_left() -> bool:
    """Whether stdout's reader has gone (`main` then exits 141)."""
    return isinstance(sys.stdout, ReaderLeft)


def _write(text: str, stream: Any) -> None:
    try:
        try:
            print(text, file=stream, flush=True)
        except UnicodeEncodeError:  # an ASCII terminal: the step icons become escapes
            encoding = getattr(stream, "encoding", None) or "ascii"
            print(text.encode(encoding, "backslashreplace").decode(encoding), file=stream,
                  flush=True)
    except BrokenPipeError:
        if stream is not sys.stdout:
            return  # no one reads stderr: nothing to tell anyone
        # no more writes, and none at exit: the interpreter's final flush would complain
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        sys.stdout = ReaderLeft()


def err(message: str) -> None:
    """One line on stderr (notifications and errors go there, results to stdout)."""
    _write(printable(message), sys.stderr)


def out(message: str = "") -> None:
    """One line on stdout, control characters escaped (`printable`)."""
    _write(printable(message), sys.stdout)


def out_json(value: Any) -> None:
    """JSON on stdout (`json_text`); still one JSON value, with no raw C1 control or
    bidirectional override in it (escaped as `\\u....` inside its strings)."""
    _write(_JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", json_text(value)),
           sys.stdout)


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
