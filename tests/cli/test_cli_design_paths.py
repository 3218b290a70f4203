"""`hwf test`: a test file's `design` path stays inside its project (docs/cli.md, `hwf
test`); a path leaving it is refused with one message that says nothing of what lies there."""

from __future__ import annotations

import json
from pathlib import Path

from support.design_tests import (
    REFUSED,
    case,
    check_design_path_errors,
    confined_project,
    hwf_test,
    write_design_path_cases,
    write_test,
)


def test_a_design_path_stays_inside_the_project(hwf, tmp_path):
    written = write_design_path_cases(confined_project(tmp_path))
    result = hwf("test", "--format", "json", str(tmp_path / "proj" / "tests"))
    assert "Traceback" not in result.stderr
    got = {Path(report["path"]).resolve(): [e["msg"] for e in report.get("errors", [])]
           for report in result.json()}
    check_design_path_errors(got, {path.resolve(): want for path, want in written.items()})


def test_outside_a_repository_the_folder_hwf_test_runs_in_is_the_project(hwf, tmp_path):
    """No `.git` above: the design beside the test file's folder counts when `hwf test`
    runs in a folder holding both, and is refused from the test file's folder alone."""
    write_test(tmp_path, "{}")  # the design, at tmp_path/flow.hwf.json
    path = tmp_path / "tests" / "t.hwf-test.json"
    path.parent.mkdir()
    path.write_text(json.dumps(hwf_test(case(expect={"status": "awaiting_agent"}),
                                        design_ref="../flow.hwf.json")), encoding="utf-8")
    assert hwf("test", str(path), cwd=tmp_path).code == 0
    refused = hwf("test", str(path), cwd=path.parent)
    assert refused.code == 2 and REFUSED in refused.stderr, refused.stderr
