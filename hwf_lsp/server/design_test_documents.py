"""Design test files (`*.hwf-test.json`, contract 7) as open documents.

Which files are test files is fixed by the contract (the suffix), not by the design globs:
`hwf test` finds them by that name.  One version of a test file is checked by the checker
`hwf test` runs (`rules/design_test_check.py`), given the design it names as the engine
reads it (`workflow/design_test_files.py`: a path inside the test file's project, else
the store of the settings' Hermes home; outside a repository the workspace folders are
the project: `DesignSource`); `analysis/design_test_text.py` puts each error at its key or value.  The design is kept on
the analysis for completion and hover, even when it has defects (the run would refuse it,
the ids are still worth offering).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hwf_lsp.analysis.design_test_text import findings_of_failures, findings_of_test_file
from hwf_lsp.jsontext.jsontree import parse
from hwf_lsp.rules.design_test_check import TEST_FILE_SUFFIX, DesignRead, examine_test_file
from hwf_lsp.workflow.design_test_files import DesignReader, read_design_under_test
from hwf_lsp.workflow.paths import hermes_home
from hwf_lsp.workflow.stores import DESIGNS_DIRNAME

TEST_KIND = "test"
log = logging.getLogger(__name__)


def is_test_path(path: str | None) -> bool:
    return bool(path) and path.endswith(TEST_FILE_SUFFIX)  # type: ignore[union-attr]


def designs_root(home: Path | None) -> Path:
    return (home if home is not None else hermes_home()) / DESIGNS_DIRNAME


@dataclass(frozen=True, slots=True)
class DesignSource:
    """Where the server finds the design a test file names: the store of `home` (None:
    the environment's Hermes home), the workspace folders (the project outside a
    repository) and the reader of design files (None: read each time)."""

    home: Path | None = None
    roots: tuple[Path, ...] = ()
    read: DesignReader | None = None

    def find(self, raw: Any, path: str) -> DesignRead | str | None:
        """`read_design_under_test` from here."""
        return read_design_under_test(raw, path, designs_root(self.home), roots=self.roots,
                                      read=self.read)


def check_test_text(text: str, path: str, source: DesignSource | None = None,
                    run_cases: bool = False) -> tuple[Any, list[Any], Any]:
    """(parsed document, findings, the design it names or None) of one version.

    On broken JSON only the syntax errors: the checker would judge a value the person has
    not finished typing.  The design is still looked up, for completion while typing.
    With `run_cases` (on open and save, off the keystroke path: running costs), a valid
    file's cases run as `hwf test` runs them, and each failing expectation is a finding
    at its `expect` entry."""
    doc = parse(text)
    value = doc.to_python()
    found = (source or DesignSource()).find(value, path)
    design = found.design if isinstance(found, DesignRead) else None
    if doc.errors:
        return doc, findings_of_test_file(doc, []), design
    test, errors = examine_test_file(value, path, found)
    findings = findings_of_test_file(doc, errors)
    if run_cases and test is not None and not errors:
        findings += findings_of_failures(doc, _failures(test))
    return doc, findings, design


def _failures(test: Any) -> list[tuple[str, int, Any]]:
    """(case name, case index, difference) of every failing expectation; none when the
    cases cannot run (logged: diagnostics never fail for it)."""
    from hwf_lsp.workflow.design_test_run import run_test_file  # the runner: on first use

    try:
        results = run_test_file(test)
    except Exception:
        log.exception("running the design test cases failed")
        return []
    return [(r.name, r.index, d) for r in results for d in r.differences]
