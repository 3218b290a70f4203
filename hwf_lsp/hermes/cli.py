"""The plugin's command lines: `hwf hermes install|cron-prompt`, and `hermes workflow ...`.

`hwf hermes` is added to the `hwf` parser by `add_hermes_command` and run by
`run_hermes_command`; `hwf_lsp/cli` only calls these two (so this module must stay
cheap to import: everything else is imported when a subcommand runs).
`hermes workflow ARGS...` is `hwf ARGS...` run inside Hermes, on the home Hermes
resolves: the same parser, output and exit codes (docs/cli.md).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_USAGE = 0, 2


def add_hermes_command(sub: Any) -> argparse.ArgumentParser:
    """`hwf hermes {install,cron-prompt}` on the `hwf` subparsers `sub`."""
    hermes = sub.add_parser(
        "hermes", help="the Hermes Agent plugin: install it, print its cron prompt",
        description="The Hermes Agent plugin `visual-workflow` (docs/hermes.md).")
    commands = hermes.add_subparsers(dest="hermes_command", metavar="SUBCOMMAND", required=True)
    install = commands.add_parser(
        "install", help="write $HERMES_HOME/plugins/visual-workflow/ and enable it",
        description="Write the plugin's directory form (plugin.yaml + __init__.py loading this "
        "hwf_lsp) into DIR/plugins/visual-workflow/ and add it to plugins.enabled in "
        "DIR/config.yaml.")
    install.add_argument("--home", metavar="DIR",
                         help="the Hermes home (default: $HERMES_HOME, else ~/.hermes)")
    install.add_argument("--no-enable", action="store_true",
                         help="write the plugin directory but leave config.yaml alone")
    install.add_argument("--no-dashboard", action="store_true",
                         help="install without the dashboard tab (whose script `make "
                         "dashboard-js` builds): tools, /workflow and `hermes workflow` only")
    prompt = commands.add_parser(
        "cron-prompt", help="print the prompt of a Hermes cron job that performs agent steps",
        description="Print the prompt for `hermes cron create SCHEDULE PROMPT`: the fresh "
        "session performs the parked agent steps of RUN_ID (default: of every run) and "
        "calls workflow_design_respond.")
    prompt.add_argument("run_id", metavar="RUN_ID", nargs="?")
    return hermes


def _home(value: str | None) -> Path:
    if value:
        return Path(value).expanduser()
    from hwf_lsp.workflow.names import hermes_home

    return hermes_home()


def _install(args: argparse.Namespace) -> int:
    from hwf_lsp.hermes.install import (
        MissingBundle,
        enable_in_config,
        package_dir,
        write_plugin_dir,
    )
    from hwf_lsp.hermes.tools import TOOL_NAMES

    home = _home(args.home)
    try:
        from importlib.metadata import version

        release = version("hwf-lsp")
    except Exception:  # noqa: BLE001 - not installed as a distribution: still installable
        release = "0"
    try:
        target = write_plugin_dir(home, release, TOOL_NAMES,
                                  with_dashboard=not args.no_dashboard)
    except MissingBundle as exc:
        print(f"hwf hermes install: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    tab = "" if args.no_dashboard else " and dashboard/"
    print(f"wrote {target}/plugin.yaml, __init__.py{tab} (loads hwf_lsp from {package_dir()})")
    if args.no_enable:
        print("not enabled: run `hermes plugins enable visual-workflow` when you want it")
        return EXIT_OK
    try:
        config, changed = enable_in_config(home)
    except ValueError as exc:
        print(f"hwf hermes install: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    print(f"{'enabled' if changed else 'already enabled'}: plugins.enabled in {config} "
          "names visual-workflow (takes effect in the next Hermes session)")
    return EXIT_OK


def run_hermes_command(args: argparse.Namespace) -> int:
    """Run `hwf hermes ...`; the exit code."""
    if args.hermes_command == "install":
        try:
            return _install(args)
        except OSError as exc:
            print(f"hwf hermes install: error: {exc}", file=sys.stderr)
            return EXIT_USAGE
    from hwf_lsp.hermes.prompts import cron_prompt
    from hwf_lsp.workflow.names import check_run_id

    if args.run_id is not None:
        try:
            check_run_id(args.run_id)
        except ValueError as exc:
            print(f"hwf hermes cron-prompt: error: {exc}", file=sys.stderr)
            return EXIT_USAGE
    print(cron_prompt(args.run_id))
    return EXIT_OK


# --- `hermes workflow ...` (registered with ctx.register_cli_command) ----------------

HERMES_ONLY_HELP = """
in Hermes only:
  agent               an agent command for `hwf --agent-command "hermes workflow agent"`
                      and the editor: one step (JSON on stdin) performed with your Hermes
                      model through the host's PluginLlm, the result on stdout
  cron SCHEDULE [RUN_ID] [--name NAME] [--deliver TARGET] [--toolsets LIST]
                      create the cron job that performs parked agent steps, with only the
                      visual_workflow toolset (docs/hermes.md, "Cron")
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


def _print_help(file: Any = None) -> None:
    from hwf_lsp.cli import build_parser

    hwf = build_parser()
    hwf.prog = "hermes workflow"
    hwf.print_help(file)
    print(HERMES_ONLY_HELP, file=file or sys.stdout)


def _hermes_only_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hermes workflow")
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
                      "(default: visual_workflow,no_mcp)")
    return parser


def _hermes_only(argv: list[str], home: Path) -> int:
    args = _hermes_only_parser().parse_args(argv)
    if args.command == "agent":
        from hwf_lsp.hermes.agent_command import run_agent_command
        from hwf_lsp.hermes.host_seams import host_llm

        return run_agent_command(home, host_llm())
    return _cron(args, home)


def _cron(args: argparse.Namespace, home: Path) -> int:
    from hwf_lsp.hermes.cron_job import CRON_TOOLSETS, create_cron_job
    from hwf_lsp.workflow.names import check_run_id

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


def run_hermes_workflow(args: argparse.Namespace) -> None:
    """`hwf <args>` on this Hermes home, or a Hermes-only subcommand (`agent`, `cron`);
    exits with its exit code (Hermes ignores returns)."""
    from hwf_lsp.hermes import current_home

    home = current_home()
    os.environ["HERMES_HOME"] = str(home)
    argv = ["--version"] if getattr(args, "hwf_version", False) else list(args.hwf_args)
    if argv and argv[0] in ("agent", "cron"):
        raise SystemExit(_hermes_only(argv, home))
    from hwf_lsp.cli import main

    raise SystemExit(main(argv))
