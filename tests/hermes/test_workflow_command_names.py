"""`hermes workflow` names itself and all its subcommands (issue 45, Hermes items):
`--version` gives the package's version in a directory-only install (was `hwf unknown`:
no package metadata there); usage lines say `hermes workflow …` (were `hwf …`); an invalid
choice lists `agent` and `cron` with hwf's own subcommands."""

from __future__ import annotations

import argparse
import importlib.metadata

import pytest

from hwf_lsp import __version__
from hwf_lsp.hermes.workflow_command import run_hermes_workflow


def hermes_workflow(capsys: pytest.CaptureFixture[str], *argv: str,
                    version: bool = False) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exited:
        run_hermes_workflow(argparse.Namespace(hwf_version=version, hwf_args=list(argv)), None)
    captured = capsys.readouterr()
    return exited.value.code, captured.out, captured.err


def test_version_without_package_metadata(capsys, monkeypatch) -> None:
    def no_metadata(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", no_metadata)
    code, out, _err = hermes_workflow(capsys, version=True)
    assert (code, out) == (0, f"hwf {__version__}\n")


@pytest.mark.parametrize("argv", [["run"], ["answer"], ["check", "--format", "xml", "x"]])
def test_usage_lines_name_hermes_workflow(capsys, argv) -> None:
    code, _out, err = hermes_workflow(capsys, *argv)
    assert code == 2
    assert f"usage: hermes workflow {argv[0]}" in err and "usage: hwf" not in err, err
    assert f"hermes workflow {argv[0]}: error:" in err


def test_an_invalid_choice_lists_every_subcommand(capsys) -> None:
    code, _out, err = hermes_workflow(capsys, "frobnicate")
    assert code == 2
    assert "usage: hermes workflow" in err
    choices = err.split("choose from", 1)[1]
    for command in ("check", "run", "runs", "agent", "cron"):
        assert f"'{command}'" in choices, err
