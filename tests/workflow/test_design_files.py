"""The one rule for a design file's run name, and loading a design file with clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from hwf_lsp.rules.names import check_design_name
from hwf_lsp.workflow.design_files import (
    DesignFileError,
    design_name_for,
    legal_design_name,
    load_design_file,
)


@pytest.mark.parametrize("design, path, expected", [
    ({"name": "n"}, "/x/y.hwf.json", "n"),
    ({}, "/x/y.hwf.json", "y"),
    ({"name": ""}, "/x/Release Notes.hwf.json", "release-notes"),
    (None, "/d/workflow-designs/z.json", "z"),
    ({"name": 5}, "C:\\d\\w.json", "w"),
    ([], None, None),
])
def test_design_name_for(design, path, expected) -> None:
    assert design_name_for(design, path) == expected


@pytest.mark.parametrize("stem, expected", [
    ("release-notes", "release-notes"),
    ("My Flow", "my-flow"),
    ("__init", "init"),
    ("ünïcode ✓", "n-code-"),
    ("..", "design"),
    ("x" * 80, "x" * 64),
])
def test_legal_design_name(stem: str, expected: str) -> None:
    assert legal_design_name(stem) == expected
    assert check_design_name(legal_design_name(stem)) == expected


@pytest.mark.parametrize("text, message", [
    ('{"nodes": [}', "is not valid JSON (Expecting value at line 1, column 12)"),
    ("[1, 2]", "is not a design: expected a JSON object"),
    (b"\xff\xfe", "is not valid UTF-8 (byte 0)"),
])
def test_load_design_file_errors(tmp_path: Path, text, message: str) -> None:
    path = tmp_path / "bad.hwf.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(ValueError) as raised:
        load_design_file(path)
    assert str(raised.value).startswith(message)


def test_load_design_file(tmp_path: Path) -> None:
    path = tmp_path / "Hello World.hwf.json"
    path.write_text('\ufeff{"nodes": []}', encoding="utf-8")
    assert load_design_file(path) == ({"nodes": []}, "hello-world")
    with pytest.raises(FileNotFoundError):
        load_design_file(tmp_path / "missing.json")
    with pytest.raises(DesignFileError, match="is a directory"):
        load_design_file(tmp_path)
