"""`hwf hermes install|cron-prompt`: the plugin's own subcommand of `hwf`.

Registered by the entry point group `hwf_lsp.hwf_subcommands` (pyproject.toml): `hwf`
finds it by name, never imports it, and calls `add_subcommand` and `run_subcommand` (cheap
to import: the rest is imported when a subcommand runs).  `hermes workflow ...`, the other
direction (`hwf` inside Hermes), is `workflow_command.py`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

EXIT_OK, EXIT_USAGE = 0, 2


def add_subcommand(sub: Any) -> argparse.ArgumentParser:
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
    from hwf_lsp.workflow.paths import hermes_home

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


def run_subcommand(args: argparse.Namespace) -> int:
    """Run `hwf hermes ...`; the exit code."""
    if args.hermes_command == "install":
        try:
            return _install(args)
        except OSError as exc:
            print(f"hwf hermes install: error: {exc}", file=sys.stderr)
            return EXIT_USAGE
    from hwf_lsp.hermes.prompts import cron_prompt
    from hwf_lsp.rules.names import check_run_id

    if args.run_id is not None:
        try:
            check_run_id(args.run_id)
        except ValueError as exc:
            print(f"hwf hermes cron-prompt: error: {exc}", file=sys.stderr)
            return EXIT_USAGE
    print(cron_prompt(args.run_id))
    return EXIT_OK


# --- `hermes workflow ...` (registered with ctx.register_cli_command) ----------------
