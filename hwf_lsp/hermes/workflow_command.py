"""`hermes workflow ARGS...`: `hwf ARGS...` run inside Hermes, on the home Hermes resolves,
with the same parser, output and exit codes (docs/cli.md), plus the Hermes-only `agent` and
`cron` subcommands.  Registered with `ctx.register_cli_command` by the plugin.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from hwf_lsp.hermes.home import current_home

EXIT_OK, EXIT_USAGE = 0, 2

HERMES_ONLY_HELP = """
in Hermes only:
  agent               an agent command for `hwf --agent-command "hermes workflow agent"`
                      and the editor: one step (JSON on stdin) performed with your Hermes
                      model through the host's PluginLlm, the result on stdout
  cron SCHEDULE [RUN_ID] [--name NAME] [--deliver TARGET] [--toolsets LIST]
                      create the cron job that performs parked agent steps, with only the
                      visual_workflow_agent_steps toolset: read runs, respond
                      (docs/hermes.md, "Cron")
"""


def setup_hermes_workflow(parser: argparse.ArgumentParser) -> None:
    """`hermes workflow [--version] ARGS...`; `--help` is `hwf --help` plus the
    Hermes-only subcommands (the host builds this parser with its own -h)."""
    parser.add_argument("--version", action="store_true", dest="hwf_version",
                        help="show the version and exit (as `hwf --version`)")
    parser.add_argument("hwf_args", nargs=argparse.REMAINDER, metavar="HWF_ARGS",
                        help="a `hwf` command line, e.g. `runs`, `run NAME`, `answer RUN "
                        "CHOICE`, or `agent`, `cron SCHEDULE [RUN_ID]`")
    parser.print_help = _print_help  # type: ignore[method-assign]


PROG = "hermes workflow"
HERMES_ONLY = (("agent", "perform one agent step (JSON on stdin) with your Hermes model"),
               ("cron", "create the cron job that performs parked agent steps"))
"""The subcommands only `hermes workflow` has, named in hwf's usage and choices."""


def _print_help(file: Any = None) -> None:
    from hwf_lsp.cli import build_parser

    build_parser(None, PROG, HERMES_ONLY).print_help(file)
    print(HERMES_ONLY_HELP, file=file or sys.stdout)


def _hermes_only_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=PROG)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    sub.add_parser("agent", help="perform one agent step (JSON on stdin) through PluginLlm")
    cron = sub.add_parser("cron", help="create the cron job that performs parked agent steps")
    cron.add_argument("schedule", metavar="SCHEDULE", help="e.g. 'every 15m', '0 9 * * *'")
    cron.add_argument("run_id", metavar="RUN_ID", nargs="?",
                      help="only this run (default: every run that waits for an agent)")
    cron.add_argument("--name", help="the job's name (default: workflow <design> <run_id>)")
    cron.add_argument("--deliver", help="where the job's answer goes (as hermes cron create)")
    cron.add_argument("--toolsets", metavar="LIST",
                      help="widen on purpose: comma-separated toolsets the session gets "
                      "(default: visual_workflow_agent_steps,no_mcp)")
    return parser


def _hermes_only(argv: list[str], home: Path, llm: Any) -> int:
    args = _hermes_only_parser().parse_args(argv)
    if args.command == "agent":
        from hwf_lsp.hermes.agent_command import run_agent_command

        return run_agent_command(home, llm)
    return _cron(args, home)


def _cron(args: argparse.Namespace, home: Path) -> int:
    from hwf_lsp.hermes.cron_job import CRON_TOOLSETS, create_cron_job
    from hwf_lsp.rules.names import check_run_id

    try:
        if args.run_id is not None:
            check_run_id(args.run_id)
    except ValueError as exc:
        print(f"hermes workflow cron: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    toolsets = tuple(t.strip() for t in (args.toolsets or "").split(",") if t.strip()) \
        or CRON_TOOLSETS
    answer = create_cron_job(home, args.schedule, args.run_id, name=args.name,
                             deliver=args.deliver, toolsets=toolsets)
    if not answer.get("success"):
        print(f"hermes workflow cron: error: {answer.get('error', answer)}", file=sys.stderr)
        return EXIT_USAGE
    print(f"Created job: {answer.get('job_id')}")
    print(f"  Name: {answer.get('name')}")
    print(f"  Schedule: {answer.get('schedule')}")
    print(f"  Toolsets: {', '.join(toolsets)}")
    return EXIT_OK


def run_hermes_workflow(args: argparse.Namespace, llm: Any) -> None:
    """`hwf <args>` on this Hermes home, or a Hermes-only subcommand (`agent`, `cron`;
    `agent` performs its step through `llm`, the `ctx.llm` of the plugin's registration);
    exits with its exit code (Hermes ignores returns)."""
    home = current_home()
    os.environ["HERMES_HOME"] = str(home)
    argv = ["--version"] if getattr(args, "hwf_version", False) else list(args.hwf_args)
    if argv and argv[0] in ("agent", "cron"):
        raise SystemExit(_hermes_only(argv, home, llm))
    from hwf_lsp.cli import main

    raise SystemExit(main(argv, PROG, HERMES_ONLY))
