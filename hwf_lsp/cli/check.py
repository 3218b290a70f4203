"""`hwf check`: the editor's verdict on design files, for terminals and CI (contract 2).

It uses the same analysis as the language server (`analysis.findings.check_text`), so a
range printed here is the range the editor underlines. The text format is 1-based
for people (`path:line:col`); the JSON format is the contract: 0-based lines and
UTF-16 characters, as LSP counts them.

Byte order marks: reading the file drops exactly one UTF-8 BOM (utf-8-sig in
`read_design_text`, as editors and the design store do) and the parser drops none,
so a file with two BOMs is a syntax error here, in the editor and in the store alike.
"""

from __future__ import annotations

import os
from typing import Any

from hwf_lsp.analysis.findings import check_text, finding_to_contract
from hwf_lsp.cli.design_arg import read_design_text, where
from hwf_lsp.cli.errors import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    CliError,
    err,
    out,
    out_json,
)
from hwf_lsp.jsontext.positions import LineIndex

ERROR, WARNING = "error", "warning"


def contract_entries(text: str) -> list[dict[str, Any]]:
    """Every finding of `text` as a contract-2 defect dict, plus `rule` and `severity`.

    `rule` and `severity` are extra keys (allowed by the contract): they let a
    script tell the rulebook's errors from the editor's warnings.
    """
    _doc, findings = check_text(text)
    index = LineIndex(text)
    return [finding_to_contract(f, index, with_rule=True) for f in findings]


def is_error(entry: dict[str, Any]) -> bool:
    return str(entry.get("severity", ERROR)).lower() == ERROR


def text_lines(path: str, entries: list[dict[str, Any]]) -> list[str]:
    """`path:line:col: severity[rule] msg` per entry."""
    return [f"{where(path, entry)}: {entry.get('severity', ERROR)}[{entry.get('rule') or '?'}] "
            f"{entry['msg']}" for entry in entries]


SKIPPED_DIRS = ("node_modules",)
"""Folders never searched for designs (besides hidden ones: `.git`, `.venv`)."""


def is_design_file(path: str) -> bool:
    """The editor's default design globs: `**/*.hwf.json`, `**/workflow-designs/*.json`."""
    name = os.path.basename(path)
    return name.endswith(".hwf.json") or (
        name.endswith(".json") and os.path.basename(os.path.dirname(path)) == "workflow-designs")


def design_files(paths: list[str]) -> list[str]:
    """`paths` with each folder replaced by the design files under it (sorted, hidden
    folders and node_modules left out), as `hwf test DIR` finds test files; a file is
    taken as given, whatever its name; a folder without any stays (a usage error)."""
    found: list[str] = []
    for path in paths:
        if not os.path.isdir(path):
            found.append(path)
            continue
        before = len(found)
        for folder, dirs, files in os.walk(path):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS)
            found.extend(os.path.normpath(os.path.join(folder, name)) for name in sorted(files)
                         if is_design_file(os.path.join(folder, name)))
        if len(found) == before:
            found.append(path)
    return list(dict.fromkeys(found))


def read_checked(path: str) -> str:
    """The text of a design file; CliError for an unreadable one or a folder without any."""
    if os.path.isdir(path):
        raise CliError(f"{path}: a directory with no design files under it (*.hwf.json, "
                       "workflow-designs/*.json)")
    return read_design_text(path)


def run_check(paths: list[str], fmt: str) -> int:
    """Check every path (a folder: the designs under it); 2 if any is unreadable, else 1
    if any has errors, else 0.

    Warnings (unknown field, duplicate key, not-upstream...) are shown but never fail.
    """
    paths = design_files(paths)
    report: list[dict[str, Any]] = []
    unreadable = failed = False
    errors = warnings = 0
    for path in paths:
        try:
            text = read_checked(path)
        except CliError as error:
            err(f"hwf check: error: {error.message}")
            unreadable = True
            report.append({"path": path, "error": error.message, "defects": []})
            continue
        entries = contract_entries(text)
        file_errors = sum(1 for e in entries if is_error(e))
        errors += file_errors
        warnings += len(entries) - file_errors
        failed = failed or file_errors > 0
        report.append({"path": path, "defects": entries})
        if fmt == "text":
            for line in text_lines(path, entries):
                out(line)
    if fmt in ("github", "sarif"):  # for CI systems: report_formats.py
        from hwf_lsp.cli.report_formats import print_report

        print_report(fmt, report)
    if fmt == "json":
        out_json(report)
    elif (checked := len(paths) - sum(1 for r in report if "error" in r)) > 0:
        err(f"checked {checked} file{'s' if checked != 1 else ''}: "
            f"{errors} error{'s' if errors != 1 else ''}, "
            f"{warnings} warning{'s' if warnings != 1 else ''}")
    if unreadable:
        return EXIT_USAGE
    return EXIT_FAILED if failed else EXIT_OK
