"""A design with errors gets no run actions, one lens saying why instead (issue 47)."""

from __future__ import annotations

import json

import pytest

from hwf_lsp.analysis.design import design_of
from hwf_lsp.analysis.findings import check_document
from hwf_lsp.jsontext.jsontree import parse
from hwf_lsp.server.features.code_lens import (
    FROM_HERE_TITLE,
    START_TITLE,
    lens_specs,
    runnable_specs,
)

GOOD = {"name": "d", "nodes": [{"id": "start", "type": "trigger"},
                               {"id": "a", "type": "agent", "prompt": "p", "after": ["start"]}]}
TWO_TRIGGERS = {"name": "d", "nodes": [*GOOD["nodes"], {"id": "again", "type": "trigger"}]}
BROKEN = {"name": "d", "nodes": [*GOOD["nodes"], {"id": "b", "type": "agent", "after": ["a"]}]}


@pytest.mark.parametrize(("design", "titles"), [
    (GOOD, [START_TITLE, FROM_HERE_TITLE]),
    (TWO_TRIGGERS, ["⚠ Cannot run: 1 error to fix first (Problems)"]),
    (BROKEN, ["⚠ Cannot run: 1 error to fix first (Problems)"]),
])
def test_lenses_only_when_the_design_can_run(design, titles) -> None:
    doc = parse(json.dumps(design))
    errors = sum(1 for f in check_document(doc) if f.severity == "error")
    specs = runnable_specs(lens_specs(design_of(doc), "file:///d.hwf.json", None), errors)
    assert [title for _, title, _, _ in specs] == titles
    assert all(command == "" for _, title, command, _ in specs if title.startswith("⚠"))
