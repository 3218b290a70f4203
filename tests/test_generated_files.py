"""Files generated from the rulebook are committed as the generators print them, so
they cannot drift from what the rulebook, completion and hover read."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hwf_lsp.generators import design_format_doc, design_schema, design_test_schema

REPO = Path(__file__).resolve().parents[1]
GENERATED = {
    "hwf_lsp.generators.design_schema": (design_schema.SCHEMA_PATH, design_schema.render),
    "hwf_lsp.generators.design_test_schema": (design_test_schema.SCHEMA_PATH,
                                              design_test_schema.render),
    "hwf_lsp.generators.design_format_doc": (design_format_doc.DOC_PATH,
                                             design_format_doc.render),
}


@pytest.mark.parametrize("module", sorted(GENERATED))
def test_committed_file_is_the_generated_output(module: str) -> None:
    path, render = GENERATED[module]
    assert (REPO / path).read_text(encoding="utf-8") == render(), (
        f"{path} is stale: run `python -m {module} > {path}`")


@pytest.mark.parametrize("module", sorted(GENERATED))
def test_module_entry_point_prints_the_file(module: str) -> None:
    path, _ = GENERATED[module]
    result = subprocess.run([sys.executable, "-m", module], cwd=REPO, capture_output=True,
                            text=True, encoding="utf-8", timeout=60, check=True)
    assert result.stdout == (REPO / path).read_text(encoding="utf-8")
