"""`hwf check` flags what `hwf run` and the store refuse, and checks a folder as `hwf test`
takes one (issue 45, "check and run disagree").

- A design whose `name` the store refuses ("Bad Name!") is an error at its `name` in
  `hwf check` (exit 1) and in the editor (the same findings), as `hwf run` refuses it.
- `hwf check DIR` checks the designs under DIR: `*.hwf.json` and `workflow-designs/*.json`,
  hidden folders and node_modules left out (was: "is a directory").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hostile import hwf, write_json
from support.designs import agent, design, output

from hwf_lsp.analysis.findings import check_text


def named(name: object) -> dict:
    flow = design(agent("work"), output("out", "work"))
    flow["name"] = name
    return flow


# (name, whether check and run refuse it)
NAMES = [("Bad Name!", True), ("UPPER", True), ("a" * 65, True), ("-dash", True),
         ("con", True), ("good-name_1.2", False), ("", False)]


@pytest.mark.parametrize(("name", "refused"), NAMES, ids=[n[:12] or "empty" for n, _ in NAMES])
def test_check_refuses_the_names_run_refuses(tmp_path: Path, name: str, refused: bool) -> None:
    path = write_json(tmp_path / "flow.hwf.json", named(name))
    checked = hwf("check", "--format", "json", str(path), home=None)
    ran = hwf("run", str(path), "--hermes-home", str(tmp_path / "home"), home=None)
    [report] = json.loads(checked.stdout)
    found = [d for d in report["defects"] if d.get("rule") == "design-name"]
    if refused:
        assert (checked.code, ran.code) == (1, 2), checked.stderr + ran.stderr
        [finding] = found
        assert finding["severity"] == "error" and finding["field"] == "name"
        assert "invalid design name" in finding["msg"]
    else:
        assert found == [] and checked.code == 0, checked.stdout
        assert ran.code != 2, ran.stderr


def test_the_editor_marks_the_name_value() -> None:
    text = json.dumps(named("Bad Name!"))
    _doc, findings = check_text(text)
    [finding] = [f for f in findings if f.rule == "design-name"]
    assert text[finding.start:finding.end] == '"Bad Name!"'
    assert finding.severity == "error"


def test_check_dir_checks_the_designs_under_it(tmp_path: Path) -> None:
    good = write_json(tmp_path / "good.hwf.json", named("good"))
    stored = write_json(tmp_path / "sub" / "workflow-designs" / "bad.json", named("Bad!"))
    for ignored in ("notes.json", ".hidden/x.hwf.json", "node_modules/y.hwf.json",
                    "sub/other/z.json"):
        write_json(tmp_path / ignored, {"not": "a design"})
    done = hwf("check", "--format", "json", str(tmp_path), home=None)
    assert done.code == 1, done.stderr
    assert sorted(r["path"] for r in json.loads(done.stdout)) == sorted(
        [str(good), str(stored)])


def test_check_dir_without_designs_is_a_usage_error(tmp_path: Path) -> None:
    write_json(tmp_path / "notes.json", {})
    done = hwf("check", str(tmp_path), home=None)
    assert done.code == 2 and "a directory with no design files" in done.stderr, done.stderr
