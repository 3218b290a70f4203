"""Builders for design test files (`*.hwf-test.json`, contract 7) and the design they test."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support.designs import agent, approval, condition, design, output

DESIGN_FILE = "flow.hwf.json"


def branching_design() -> dict:
    """work (agent, 1 retry) -> high (score >= 5) -> ok (approval) -> out (notification)."""
    return design(agent("work", retries=1),
                  condition("high", "out.work.score >= 5", "work"),
                  approval("ok", "high"),
                  output("out", "ok", "work", deliver="notification"),
                  name="flow")


def case(name: str = "c", expect: Any = None, **fields: Any) -> dict:
    """A case; `expect` defaults to {"status": "completed"}, fields as given."""
    return {"name": name, **fields,
            "expect": {"status": "completed"} if expect is None else expect}


def hwf_test(*cases: dict, design_ref: str = DESIGN_FILE, **extra: Any) -> dict:
    return {"design": design_ref, "cases": list(cases), **extra}


def write_test(folder: Path, test: Any, name: str = "flow.hwf-test.json",
               the_design: dict | None = None) -> Path:
    """The test file `name` in `folder`, beside the design file it names (written too)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / DESIGN_FILE).write_text(json.dumps(the_design or branching_design()),
                                      encoding="utf-8")
    path = folder / name
    path.write_text(test if isinstance(test, str) else json.dumps(test, indent=2),
                    encoding="utf-8")
    return path


REFUSED = "is not a file inside this project"
"""The one message a `design` path leaving its project gets, whatever lies there."""


def confined_project(root: Path) -> Path:
    """A project (`root/proj`, holding `.git`) beside a folder outside it (`root/outside`),
    for the cases of `DESIGN_PATH_CASES`; the folder the test files go in
    (`root/proj/tests`)."""
    outside, project = root / "outside", root / "proj"
    for folder in (outside, project / ".git", project / "tests"):
        folder.mkdir(parents=True, exist_ok=True)
    (outside / "secret.json").write_text(json.dumps(branching_design()), encoding="utf-8")
    (outside / "notes.txt").write_text("not JSON", encoding="utf-8")
    (project / DESIGN_FILE).write_text(json.dumps(branching_design()), encoding="utf-8")
    (project / "broken.hwf.json").write_text("{not JSON", encoding="utf-8")
    link = project / "link.hwf.json"
    if not link.is_symlink():
        link.symlink_to(outside / "secret.json")
    return project / "tests"


DESIGN_PATH_CASES = [
    # (label, `design` (`{root}`: the folder holding proj/ and outside/), words expected
    #  in the one error on /design, None: the file is valid)
    ("up to the project's root", "../flow.hwf.json", None),
    ("inside, not JSON", "../broken.hwf.json", "is not valid JSON"),
    ("inside, missing", "../nope.hwf.json", "no design file '../nope.hwf.json' beside"),
    ("out by .., a design", "../../outside/secret.json", REFUSED),
    ("out by .., not JSON", "../../outside/notes.txt", REFUSED),
    ("out by .., missing", "../../outside/nowhere.json", REFUSED),
    ("out and back in by ..", "../../proj/flow.hwf.json", None),
    ("in and out by ..", "../tests/../../outside/secret.json", REFUSED),
    ("absolute, outside", "{root}/outside/secret.json", REFUSED),
    ("absolute, inside", "{root}/proj/flow.hwf.json", REFUSED),
    ("absolute, a system file", "/etc/passwd", REFUSED),
    ("a link inside leading out", "../link.hwf.json", REFUSED),
]


def write_design_path_cases(tests_folder: Path) -> dict[Path, tuple[str, str | None]]:
    """One test file per case of `DESIGN_PATH_CASES` in `tests_folder` (made by
    `confined_project`): its path -> (the `design` it names, the words expected)."""
    root = tests_folder.parent.parent
    written = {}
    for index, (_label, ref, words) in enumerate(DESIGN_PATH_CASES):
        ref = ref.replace("{root}", str(root))
        path = tests_folder / f"case-{index}.hwf-test.json"
        path.write_text(json.dumps(hwf_test(case(expect={"status": "awaiting_agent"}),
                                            design_ref=ref)), encoding="utf-8")
        written[path] = (ref, words)
    return written


def check_design_path_errors(got: dict[Path, list[str]],
                             written: dict[Path, tuple[str, str | None]]) -> None:
    """Each file's errors are the one expected (or none), and every refusal is the same
    sentence but for the path: it says nothing of what lies there."""
    refusals = set()
    for path, (ref, words) in written.items():
        messages = got[path]
        if words is None:
            assert messages == [], (ref, messages)
            continue
        assert len(messages) == 1 and words in messages[0], (ref, messages)
        if words == REFUSED:
            refusals.add(messages[0].replace(repr(ref), "REF"))
    assert len(refusals) == 1, refusals
