"""`hwf test [PATH...]`: run design tests (`*.hwf-test.json`, contract 7) and report.

Exit 0 when every case passed, 1 when a case failed, 2 for a usage error or a test file
that cannot run (unreadable, invalid: each error names the case and the field, at a JSON
pointer).  Formats: text for people, `json` (contract 7), `junit` for CI systems.
`--write-expectations` fills each case's `expect` from what its run did.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hwf_lsp.cli.errors import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    err,
    leading_path,
    out,
    out_json,
)
from hwf_lsp.rules.design_test_check import (
    TEST_FILE_SUFFIX,
    DesignTestFile,
    InvalidTestFile,
    TestFileError,
)
from hwf_lsp.rules.strict_json import LONE_SURROGATE
from hwf_lsp.workflow.atomic import atomic_write_bytes
from hwf_lsp.workflow.design_test_files import load_test_file
from hwf_lsp.workflow.design_test_run import (
    CaseResult,
    observed_expect,
    run_case,
    run_test_file,
)

SKIPPED_DIRS = ("node_modules",)
"""Directories never searched for test files (besides hidden ones: `.git`, `.venv`)."""


@dataclass
class FileReport:
    """One test file: its cases' results, or why it could not run."""

    path: str
    design: str | None = None
    cases: list[CaseResult] = field(default_factory=list)
    errors: list[TestFileError] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "path": self.path, "design": self.design,
            "cases": [{"name": c.name, "passed": c.passed, "failures": c.failures}
                      for c in self.cases],
        }
        if self.errors:
            entry["errors"] = [e.as_dict() for e in self.errors]
        return entry


def find_test_files(paths: list[str]) -> tuple[list[str], list[str]]:
    """(test files, paths that do not exist).  A directory is searched recursively for
    `*.hwf-test.json`, hidden directories and node_modules left out; a file is taken as
    given, whatever its name."""
    found: list[str] = []
    missing: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            for folder, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs
                                 if not d.startswith(".") and d not in SKIPPED_DIRS)
                found.extend(os.path.normpath(os.path.join(folder, name))
                             for name in sorted(files) if name.endswith(TEST_FILE_SUFFIX))
        elif os.path.exists(path):
            found.append(path)
        else:
            missing.append(path)
    return list(dict.fromkeys(found)), missing


def _load(report: FileReport, *, with_expect: bool = True) -> DesignTestFile | None:
    """The test file of `report`, or None with its errors recorded in `report`."""
    try:
        test = load_test_file(report.path, with_expect=with_expect, roots=(Path.cwd(),))
    except FileNotFoundError:
        report.errors = [TestFileError("", None, None, "no such file")]
        return None
    except InvalidTestFile as invalid:
        report.errors = invalid.errors
        return None
    report.design = test.design_ref
    return test


def test_one_file(path: str) -> FileReport:
    report = FileReport(path)
    test = _load(report)
    if test is not None:
        report.cases = run_test_file(test)
    return report


def write_expectations(path: str) -> FileReport:
    """Run every case and write its `expect` as the run did it, keeping the file's other
    keys and their order; written atomically (a reader sees the old file or the new)."""
    report = FileReport(path)
    test = _load(report, with_expect=False)
    if test is None:
        return report
    raw_cases = test.raw["cases"]
    for case in test.cases:
        outcome = run_case(test, case)
        raw_cases[case.index]["expect"] = observed_expect(
            test, outcome, raw_cases[case.index].get("expect"))
        report.cases.append(CaseResult(case.name, case.index, [], outcome))
    try:
        text = as_read(test.raw)
    except RecursionError:
        report.errors = [TestFileError("", None, None, "not written: the file is nested too "
                                       "deeply to write back (a value hundreds of levels deep)")]
        return report
    target = Path(os.path.realpath(path))  # a symlink stays a link; its target is rewritten
    atomic_write_bytes(target, text.encode("utf-8"), like=target.stat())
    return report


def as_read(raw: Any) -> str:
    """A test file's text for `raw` that `hwf test` reads back as the same value: NaN and
    ±Infinity as JSON's readers that take them write them, a lone surrogate (only ever
    inside a string) as its escape, so the file stays valid UTF-8."""
    text = json.dumps(raw, indent=2, ensure_ascii=False, allow_nan=True) + "\n"
    return LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def print_text(reports: list[FileReport]) -> None:
    for report in reports:
        if report.errors:
            continue  # on stderr (print_errors)
        out(f"{leading_path(report.path)} (design {report.design})")
        for case in report.cases:
            out(f"  {'ok  ' if case.passed else 'FAIL'}  {case.name}")
            for failure in case.failures:
                out(f"        {failure}")


def print_errors(reports: list[FileReport]) -> None:
    for report in reports:
        for error in report.errors:
            err(f"{leading_path(report.path)}: {error}")


def summary_line(reports: list[FileReport]) -> str:
    cases = [c for r in reports for c in r.cases]
    failed = sum(1 for c in cases if not c.passed)
    invalid = sum(1 for r in reports if r.errors)
    line = (f"{len(reports)} test file{'s' if len(reports) != 1 else ''}, {len(cases)} "
            f"case{'s' if len(cases) != 1 else ''}: {len(cases) - failed} passed, "
            f"{failed} failed")
    return line + (f"; {invalid} test file{'s' if invalid != 1 else ''} could not run"
                   if invalid else "")


def exit_code(reports: list[FileReport], missing: list[str]) -> int:
    if missing or any(r.errors for r in reports):
        return EXIT_USAGE
    return EXIT_FAILED if any(not c.passed for r in reports for c in r.cases) else EXIT_OK


def run_tests(paths: list[str], fmt: str, write: bool = False) -> int:
    """`hwf test`: find the test files under `paths` (default: the current directory),
    run or (`write`) snapshot them, print in `fmt`, and return the exit code."""
    files, missing = find_test_files(paths or ["."])
    for path in missing:
        err(f"hwf test: error: {path}: no such file or directory")
    if not files and not missing:
        err(f"hwf test: no *{TEST_FILE_SUFFIX} files under {', '.join(paths or ['.'])}")
    if write:
        reports = [write_expectations(path) for path in files]
        print_errors(reports)
        for report in reports:
            if not report.errors:
                out(f"{leading_path(report.path)}: wrote the expectations of {len(report.cases)} "
                    f"case{'s' if len(report.cases) != 1 else ''}; review them")
        return EXIT_USAGE if missing or any(r.errors for r in reports) else EXIT_OK
    reports = [test_one_file(path) for path in files]
    if fmt == "json":
        out_json([r.as_json() for r in reports])
    elif fmt == "junit":
        from hwf_lsp.cli.junit import junit_xml

        for line in junit_xml(reports).split("\n"):  # not splitlines: NEL, U+2028…
            out(line)
    else:
        print_text(reports)
    print_errors(reports)
    if files:
        err(summary_line(reports))
    return exit_code(reports, missing)
