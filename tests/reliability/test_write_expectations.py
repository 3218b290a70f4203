"""`hwf test --write-expectations` on files a user really has (issue 45, B1, B2, B4).

- The rewritten file keeps its mode and group (was: 0600 whatever it had; on a
  group-shared checkout its owner could no longer read it).
- A symlinked test file: the link stays a link, its target is rewritten (with its mode).
- NaN, ±Infinity, 1e999 and a lone surrogate escape, which `hwf test` reads, are written
  back as read (was: "internal error … (this is a bug)").
- A mock nested almost to the recursion limit: a clear error, never a RecursionError.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from hostile import hwf
from support.design_tests import case, hwf_test, write_test

INTERNAL = "internal error"


def write_expectations(path: Path):
    return hwf("test", "--write-expectations", str(path), home=None)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("mode", [0o644, 0o664, 0o755, 0o600])
def test_the_file_keeps_its_mode_and_group(tmp_path, mode):
    path = write_test(tmp_path, hwf_test(case("c", agents={"work": {"structured": {"score": 1}}})))
    os.chmod(path, mode)
    before = path.stat()
    done = write_expectations(path)
    assert done.code == 0, done.text
    after = path.stat()
    assert (_mode(path), after.st_uid, after.st_gid) == (mode, before.st_uid, before.st_gid)
    assert json.loads(path.read_text(encoding="utf-8"))["cases"][0]["expect"]["status"]


def test_a_symlinked_file_keeps_its_link_and_its_target_is_rewritten(tmp_path):
    target = write_test(tmp_path / "real", hwf_test(
        case("c", agents={"work": {"structured": {"score": 1}}}),
        design_ref="../real/flow.hwf.json"))
    os.chmod(target, 0o664)
    link = tmp_path / "real" / "link.hwf-test.json"
    link.symlink_to(target.name)
    done = write_expectations(link)
    assert done.code == 0, done.text
    assert link.is_symlink() and os.readlink(link) == target.name
    assert _mode(target) == 0o664
    written = json.loads(target.read_text(encoding="utf-8"))
    assert written["cases"][0]["expect"]["steps"]["work"] == "done"


# (label, JSON text of a value `hwf test` reads, the value read back after writing)
ODD_VALUES = [
    ("NaN", "NaN", "NaN"),
    ("Infinity", "Infinity", "Infinity"),
    ("-Infinity", "-Infinity", "-Infinity"),
    ("1e999", "1e999", "Infinity"),
    ("a lone surrogate escape", '"\\ud83d"', '"\\ud83d"'),
]


@pytest.mark.parametrize("label,text,back", ODD_VALUES, ids=[c[0] for c in ODD_VALUES])
def test_odd_values_are_written_back_as_read(tmp_path, label, text, back):
    test = hwf_test(case("c", agents={"work": {"structured": {"score": 7}}}),
                    description="PLACEHOLDER")
    path = write_test(tmp_path, json.dumps(test).replace('"PLACEHOLDER"', text))
    assert hwf("test", str(path), home=None).code in (0, 1)  # it reads them
    done = write_expectations(path)
    assert INTERNAL not in done.text
    assert done.code == 0, done.text
    written = path.read_text(encoding="utf-8")  # valid UTF-8
    assert json.loads(written)["description"] == json.loads(back) or back == "NaN"
    assert f'"description": {back}' in written
    assert hwf("test", str(path), home=None).code == 0


def _nested(depth: int) -> str:
    return "[" * depth + "1" + "]" * depth


@pytest.mark.parametrize("depth", [600, 960, 975, 978])
def test_a_deeply_nested_mock_is_a_clear_error(tmp_path, depth):
    mock = {"structured": "DEEP"}
    test = hwf_test(case("c", agents={"work": [mock, mock]}))  # `work` has one retry
    path = write_test(tmp_path, json.dumps(test).replace('"DEEP"', _nested(depth)))
    before = path.read_bytes()
    done = write_expectations(path)
    assert INTERNAL not in done.text and "Recursion" not in done.text, done.text
    if done.code == 0:  # the run failed the step, saying why, and the file was written
        written = path.read_text(encoding="utf-8")  # too deep for json.loads under pytest
        assert '"status": "failed"' in written and '"work": "failed"' in written
    else:
        assert done.code == 2 and "nested" in done.stderr, done.text
        assert path.read_bytes() == before
