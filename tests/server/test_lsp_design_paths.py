"""The server's diagnostics of a test file's `design` path: inside its project (the
folder holding `.git`; outside a repository the workspace folder) or refused with one
message that says nothing of what lies there, as `hwf test` says it (tests/cli/
test_cli_design_paths.py runs the same table)."""

from __future__ import annotations

import json

import pytest
from helpers_lsp import WORKSPACE, open_doc, wait_published
from support.design_tests import (
    DESIGN_FILE,
    branching_design,
    case,
    check_design_path_errors,
    confined_project,
    hwf_test,
    write_design_path_cases,
)

pytestmark = pytest.mark.asyncio(loop_scope="module")


async def test_a_design_path_stays_inside_the_project(client):
    written = write_design_path_cases(confined_project(WORKSPACE / "confined"))
    got = {}
    for path in written:
        uri = path.as_uri()
        open_doc(client, uri, path.read_text(encoding="utf-8"))
        got[path] = [d.message for d in await wait_published(client, uri, 1)
                     if d.code == "design-test"]
    check_design_path_errors(got, written)


async def test_outside_a_repository_the_workspace_folder_is_the_project(client):
    folder = WORKSPACE / "no-repository"
    (folder / "tests").mkdir(parents=True, exist_ok=True)
    (folder / DESIGN_FILE).write_text(json.dumps(branching_design()), encoding="utf-8")
    path = folder / "tests" / f"t-{client.client_name}.hwf-test.json"
    text = json.dumps(hwf_test(case(expect={"status": "awaiting_agent"}),
                               design_ref="../flow.hwf.json"))
    open_doc(client, path.as_uri(), text)
    assert await wait_published(client, path.as_uri(), 1) == []
