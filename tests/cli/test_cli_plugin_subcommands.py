"""`hwf` finds the subcommands other packages add (the Hermes plugin's `hwf hermes`) by
their entry points, never by importing them, and reads no entry point for a built-in
command (importlib.metadata costs every command ~30 ms)."""

from __future__ import annotations

import argparse
import importlib.metadata
from types import SimpleNamespace
from typing import Any

import pytest

import hwf_lsp.cli as cli


class FakePlugin:
    @staticmethod
    def add_subcommand(sub: Any) -> None:
        sub.add_parser("fake").add_argument("number", type=int)

    @staticmethod
    def run_subcommand(args: argparse.Namespace) -> int:
        return args.number + 1


def entry_points(group: str) -> list[SimpleNamespace]:
    return [SimpleNamespace(name="fake", load=lambda: FakePlugin)] \
        if group == cli.SUBCOMMANDS_GROUP else []


def test_a_plugin_subcommand_is_added_and_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    assert cli.main(["fake", "6"]) == 7


@pytest.mark.parametrize("argv", [["check", "x.hwf.json"], ["runs"], ["test"]])
def test_a_built_in_command_reads_no_entry_point(monkeypatch: pytest.MonkeyPatch,
                                                 argv: list[str]) -> None:
    def refuse(group: str) -> list[Any]:
        raise AssertionError(f"entry points of {group} read for {argv}")

    monkeypatch.setattr(importlib.metadata, "entry_points", refuse)
    assert cli.plugin_subcommands(argv) == {}


def test_every_built_in_command_is_known_as_one() -> None:
    commands = cli.build_parser({})._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert set(commands) == set(cli.BUILT_IN_COMMANDS)
