"""docs/design-format.md: complete, and its minimal design valid (that it is the generator's
output: tests/test_generated_files.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hwf_lsp.generators import design_format_doc
from hwf_lsp.rules import vocabulary as vocab
from hwf_lsp.rules.validator import validate_designer_graph

REPO = Path(__file__).resolve().parents[2]
TEXT = design_format_doc.render()


def test_the_minimal_design_is_valid_and_in_the_readme() -> None:
    assert validate_designer_graph(design_format_doc.MINIMAL_DESIGN) == []
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert design_format_doc.design_json(design_format_doc.MINIMAL_DESIGN) in readme


ROWS = [(kind, field) for kind in vocab.KINDS for field in vocab.KIND_FIELDS[kind]]


@pytest.mark.parametrize(("kind", "field"), ROWS, ids=[f"{k}.{f.name}" for k, f in ROWS])
def test_every_field_has_a_row_under_its_kind(kind: str, field: vocab.Field) -> None:
    section = TEXT.split(f"### `{kind}`", 1)[1].split("\n### ", 1)[0]
    row = next(line for line in section.splitlines() if line.startswith(f"| `{field.name}` |"))
    cells = [c.strip() for c in row.strip("|").split(" | ")]
    assert cells[2] == ("yes" if field.required else "no")
    if field.default is not None:
        assert cells[3] != "—"
    if field.maximum is not None:
        assert f"{field.minimum}–{field.maximum}" in cells[4]


@pytest.mark.parametrize("code", [*vocab.RULES, *vocab.EDITOR_RULES])
def test_every_rule_code_is_listed(code: str) -> None:
    assert f"| `{code}` |" in TEXT


def test_hwf_help_points_at_the_doc() -> None:
    from hwf_lsp.cli import EPILOG

    assert design_format_doc.DOC_PATH in EPILOG
    assert "python -m hwf_lsp.generators.design_format_doc" in EPILOG
