"""Design test files (`*.hwf-test.json`, contract 7) as open documents.

Which files are test files is fixed by the contract (the suffix), not by the design globs:
`hwf test` finds them by that name.  One version of a test file is checked by the engine's
checker (`workflow/design_tests.examine_test_file`, what `hwf test` runs), which reads the
design it names from disk (beside the file, else the store of the settings' Hermes home);
`analysis/design_test_text.py` puts each error at its key or value.  The design is kept on
the analysis for completion and hover, even when it has defects (the run would refuse it,
the ids are still worth offering).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hwf_lsp.analysis.design_test_text import findings_of_test_file
from hwf_lsp.jsontext.jsontree import parse
from hwf_lsp.workflow.design_files import DesignFileError, design_from_text
from hwf_lsp.workflow.design_tests import TEST_FILE_SUFFIX, examine_test_file, locate_design
from hwf_lsp.workflow.paths import hermes_home
from hwf_lsp.workflow.stores import DESIGNS_DIRNAME, read_text_file

TEST_KIND = "test"


def is_test_path(path: str | None) -> bool:
    return bool(path) and path.endswith(TEST_FILE_SUFFIX)  # type: ignore[union-attr]


def designs_root(home: Path | None) -> Path:
    return (home if home is not None else hermes_home()) / DESIGNS_DIRNAME


def check_test_text(text: str, path: str, home: Path | None) -> tuple[Any, list[Any], Any]:
    """(parsed document, findings, the design it names or None) of one version.

    On broken JSON only the syntax errors: the checker would judge a value the person has
    not finished typing.  The design is still looked up, for completion while typing."""
    doc = parse(text)
    value = doc.to_python()
    root = designs_root(home)
    if doc.errors:
        return doc, findings_of_test_file(doc, []), _design_named(value, path, root)
    test, errors = examine_test_file(value, path, root)
    design = test.design if test is not None else _design_named(value, path, root)
    return doc, findings_of_test_file(doc, errors), design


def _design_named(value: Any, path: str, root: Path) -> dict[str, Any] | None:
    """The design `value["design"]` names, read as it is (defects and all), else None."""
    ref = value.get("design") if isinstance(value, dict) else None
    if not isinstance(ref, str) or not ref:
        return None
    try:
        found = locate_design(ref, Path(path), root)
        return design_from_text(read_text_file(found), found)[0] if found else None
    except (DesignFileError, ValueError, OSError):
        return None
