"""The `hwf` command: check designs and run them from a terminal.

Thin by design: argparse lives here, the work lives in `check.py` (contract 2), `runs.py`
(contract 4) and `design_test_command.py` (contract 7). They call the engine; they don't
copy it.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from hwf_lsp.cli import errors
from hwf_lsp.cli.errors import (
    EXIT_CODES_HELP,
    EXIT_FAILED,
    EXIT_READER_LEFT,
    CliError,
    err,
)
from hwf_lsp.rules.vocabulary import RUN_STATUSES

DEFAULT_RUNS_PAGE = 20
BUILT_IN_COMMANDS = ("check", "test", "run", "resume", "answer", "respond", "runs", "show",
                     "cancel", "debug-adapter")
SUBCOMMANDS_GROUP = "hwf_lsp.hwf_subcommands"

EPILOG = f"""\
examples:
  hwf check examples/*.hwf.json             # file:line:col: error[rule] message (1-based)
  hwf check --format json broken.hwf.json   # contract 2: 0-based, UTF-16 ranges
  hwf test examples                         # design tests: mocked agents, in memory
  hwf run examples/review-flow.hwf.json --agent-command "python examples/agents/echo_agent.py"
  hwf run review-flow                       # a design stored in $HERMES_HOME/workflow-designs
  hwf run review-flow --from review         # re-run 'review' and downstream, reusing the rest
  hwf answer 3f2a9c01d4e5 approve           # answer a parked approval, then continue
  hwf respond 3f2a9c01d4e5 --structured '{{"score": 8}}'
  hwf runs
  hwf show 3f2a9c01d4e5 --json
  hwf show 3f2a9c01d4e5 --step review

the design format (every kind, its fields, required or not, defaults, limits):
  docs/design-format.md, or print it: python -m hwf_lsp.generators.design_format_doc

{EXIT_CODES_HELP}

environment:
  HERMES_HOME        where designs and runs live (default ~/.hermes)
  HWF_AGENT_COMMAND  the agent command when --agent-command is not given
  HWF_DELIVERY_COMMAND  the channel delivery command when --delivery-command is not given
"""


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("hwf-lsp")
    except PackageNotFoundError:  # a directory install (Hermes' plugin dir): no metadata
        from hwf_lsp import __version__

        return __version__


class _Version(argparse.Action):
    """`--version`, looked up only when asked: importlib.metadata costs every command
    ~60 ms (a third of `hwf runs`)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        print(f"hwf {package_version()}")
        parser.exit()


def _add_runner_options(parser: argparse.ArgumentParser) -> None:
    """Options of every subcommand that advances a run (who performs its steps)."""
    parser.add_argument(
        "--agent-command", metavar="CMD",
        help="command that performs agent steps (split like a shell would, never run by "
        "one); JSON request on stdin, answer on stdout. Default: $HWF_AGENT_COMMAND; "
        "with neither, agent steps park for `hwf respond`",
    )
    parser.add_argument(
        "--delivery-command", metavar="CMD",
        help="command that delivers `channel` outputs; gets {target, text, run_id, node_id, "
        "key} on stdin. Default: $HWF_DELIVERY_COMMAND; with neither, channel deliveries "
        "are recorded as failed (ok: false) and the run goes on",
    )
    parser.add_argument(
        "--no-model-override", action="store_true",
        help="never pass an agent node's `model` to the agent command, even when the trust "
        "gate plugins.entries.visual-workflow.llm.allow_model_override in "
        "$HERMES_HOME/config.yaml is true (only that gate can open it)",
    )
    parser.add_argument("--allow-model-override", action="store_true", help=argparse.SUPPRESS)
    _add_home_option(parser)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of runs >= 1, not {text!r}")
    return value


def _add_home_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--hermes-home", metavar="DIR",
        help="use DIR instead of $HERMES_HOME (default ~/.hermes)",
    )


def _add_json_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")


def plugin_subcommands(argv: Sequence[str] = ()) -> dict[str, Any]:
    """The subcommands other packages add to `hwf` (the Hermes plugin's `hwf hermes`): the
    modules the entry points of SUBCOMMANDS_GROUP name, each with `add_subcommand` and
    `run_subcommand`, found by name (so the plugin may import `hwf`).  None when `argv`
    names a built-in command: importlib.metadata costs ~30 ms."""
    if argv and argv[0] in BUILT_IN_COMMANDS:
        return {}
    from importlib.metadata import entry_points

    return {entry.name: entry.load() for entry in entry_points(group=SUBCOMMANDS_GROUP)}


def build_parser(plugins: dict[str, Any] | None = None, prog: str = "hwf",
                 extra: Sequence[tuple[str, str]] = ()) -> argparse.ArgumentParser:
    """`hwf`'s parser: its commands, the plugins' subcommands, and `extra` ones (name, help)
    of a host that runs it under its own name (`hermes workflow`: agent, cron), so usage
    lines and an invalid choice name them all."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Check Hermes Workflow designs and run them from the terminal. Runs are "
        "shared with the canvas, chat, cron and the editor through $HERMES_HOME.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_Version, nargs=0, default=argparse.SUPPRESS,
                        help="show the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        return sub.add_parser(
            name, help=help_text, description=help_text, epilog=EXIT_CODES_HELP,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )

    check = add("check", "check design files against the rulebook (and editor warnings)")
    check.add_argument("--format", choices=("text", "json", "github", "sarif"), default="text",
                       help="text: path:line:col (1-based); json: contract 2 "
                       "(0-based lines, UTF-16 characters); github: GitHub Actions "
                       "annotations; sarif: SARIF 2.1.0")
    check.add_argument("paths", nargs="+", metavar="PATH",
                       help="design files, or folders: the *.hwf.json and "
                       "workflow-designs/*.json files under them")

    test = add("test", "run design tests (*.hwf-test.json): mocked agents, answers and "
               "deliveries, in memory")
    test.add_argument("--format", choices=("text", "json", "junit"), default="text",
                      help="text for people; json: contract 7; junit: JUnit XML for CI")
    test.add_argument("--write-expectations", action="store_true",
                      help="fill each case's expect from what its run did (a first "
                      "snapshot to review), keeping the file's other keys")
    test.add_argument("paths", nargs="*", metavar="PATH",
                      help="test files or directories (default: every *.hwf-test.json "
                      "under the current directory)")

    run = add("run", "start a run of a design and advance it until it completes or parks")
    run.add_argument("design", metavar="DESIGN",
                     help="a design file, or the name of a design in $HERMES_HOME")
    run.add_argument("--from", dest="from_node", metavar="NODE",
                     help="run from here: re-run NODE and its descendants, reusing "
                     "upstream outputs of a base run")
    run.add_argument("--base-run", metavar="RUN_ID",
                     help="with --from: the run whose upstream outputs are reused "
                     "(default: the newest suitable run of the design)")
    _add_runner_options(run)

    resume = add("resume", "advance a run again (after a crash, or once its wait is over)")
    resume.add_argument("run_id", metavar="RUN_ID")
    _add_runner_options(resume)

    answer = add("answer", "answer a run parked at an approval, then advance it")
    answer.add_argument("run_id", metavar="RUN_ID")
    answer.add_argument("choice", metavar="CHOICE", help="one of the approval's options")
    _add_runner_options(answer)

    respond = add("respond", "give the result of a run's parked agent step, then advance it")
    respond.add_argument("run_id", metavar="RUN_ID")
    given = respond.add_mutually_exclusive_group(required=True)
    given.add_argument("--output", metavar="TEXT", help="the agent's text output")
    given.add_argument("--structured", metavar="JSON", help="the agent's structured output")
    _add_runner_options(respond)

    runs = add("runs", "list the runs in $HERMES_HOME, newest first (the newest 20 unless "
               "told otherwise)")
    page = runs.add_mutually_exclusive_group()
    page.add_argument("--limit", type=_positive, default=DEFAULT_RUNS_PAGE, metavar="N",
                      help=f"show the newest N runs (default {DEFAULT_RUNS_PAGE})")
    page.add_argument("--all", action="store_true", help="show every run")
    runs.add_argument("--design", metavar="NAME", help="only runs of design NAME")
    runs.add_argument("--status", metavar="S", choices=RUN_STATUSES,
                      help=f"only runs with status S ({', '.join(RUN_STATUSES)})")
    _add_json_option(runs)
    _add_home_option(runs)

    show = add("show", "show one run: status, steps, what it waits for, where it lives")
    show.add_argument("run_id", metavar="RUN_ID")
    show.add_argument("--step", metavar="NODE",
                      help="show one step: the context it was given, its full output, its "
                           "failed attempts, its times and its delivery receipts")
    _add_json_option(show)
    _add_home_option(show)

    cancel = add("cancel", "cancel a run (a parked or running one)")
    cancel.add_argument("run_id", metavar="RUN_ID")
    _add_home_option(cancel)

    add("debug-adapter", "the workflow debugger: the Debug Adapter Protocol on stdin/stdout "
        "(for an editor's debug client; docs/debugging.md)")
    for plugin in (plugin_subcommands() if plugins is None else plugins).values():
        plugin.add_subcommand(sub)
    for name, help_text in extra:  # the host's own: listed, parsed by the host
        add(name, help_text)
    return parser


def _tolerate_any_terminal() -> None:
    """Never crash on a character the terminal's encoding lacks (ids, arrows, ellipses)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")


def main(argv: Sequence[str] | None = None, prog: str = "hwf",
         extra: Sequence[tuple[str, str]] = ()) -> int:
    code = _main(argv, prog, extra)
    return EXIT_READER_LEFT if errors.reader_left() else code


def _main(argv: Sequence[str] | None, prog: str = "hwf",
          extra: Sequence[tuple[str, str]] = ()) -> int:
    _tolerate_any_terminal()
    plugins = plugin_subcommands(sys.argv[1:] if argv is None else argv)
    args = build_parser(plugins, prog, extra).parse_args(argv)
    try:
        if args.command in plugins:
            return plugins[args.command].run_subcommand(args)
        if args.command == "check":
            from hwf_lsp.cli.check import run_check

            return run_check(args.paths, args.format)
        if args.command == "debug-adapter":
            from hwf_lsp.debug.adapter import main as debug_adapter

            return debug_adapter()
        if args.command == "test":
            from hwf_lsp.cli.design_test_command import run_tests

            return run_tests(args.paths, args.format, args.write_expectations)
        from hwf_lsp.cli import runs as cli_runs

        return cli_runs.dispatch(args)
    except CliError as error:
        err(f"hwf {args.command}: error: {error.message}")
        return error.code
    except KeyboardInterrupt:
        err(f"hwf {args.command}: interrupted")
        return 130
    except Exception as exc:  # a bug: still one line, unless asked for more
        if os.environ.get("HWF_DEBUG"):
            raise
        err(f"hwf {args.command}: internal error: {type(exc).__name__}: {exc} "
            "(this is a bug; HWF_DEBUG=1 shows the traceback)")
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
