"""`hwf check`: exit codes, both formats, and ranges (contract 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hwf_cli_helpers import EXAMPLES

BROKEN = "examples/broken.hwf.json"
GOOD = ["examples/hello-world.hwf.json", "examples/review-flow.hwf.json",
        "examples/workflow-designs/nightly-digest.json"]
VALID_DESIGN = '{"name": "x", "nodes": [{"id": "t", "type": "trigger"}]}'


def write(tmp_path: Path, name: str, data: bytes | str) -> str:
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return str(path)


# (case name, file contents or None for "use args as given", extra args, exit, stderr part)
EXIT_CASES = [
    ("valid design", VALID_DESIGN, [], 0, "0 errors"),
    ("warnings alone pass", '{"name": "x", "nodes": [{"id": "t", "type": "trigger", '
     '"titel": "typo"}]}', [], 0, "1 warning"),
    ("defects fail", '{"name": "x", "nodes": []}', [], 1, "1 error"),
    ("json syntax error is a defect", '{"name": "x", "nodes": [', [], 1, "error"),
    ("invalid UTF-8", b'{"name": "\xff"}', [], 2, "not valid UTF-8"),
    ("utf-8 BOM is accepted", b"\xef\xbb\xbf" + VALID_DESIGN.encode(), [], 0, "0 errors"),
    # one BOM is dropped when the file is read, in one place; the store refuses two too
    ("two BOMs are an error", b"\xef\xbb\xbf" * 2 + VALID_DESIGN.encode(), [], 1, "1 error"),
]


@pytest.mark.parametrize("name,contents,extra,code,stderr_part", EXIT_CASES,
                         ids=[c[0] for c in EXIT_CASES])
def test_exit_codes(hwf, tmp_path, name, contents, extra, code, stderr_part):
    path = write(tmp_path, "design.hwf.json", contents)
    result = hwf("check", *extra, path)
    assert result.code == code, result.stderr
    assert stderr_part in result.stderr
    assert "Traceback" not in result.stderr


ARG_CASES = [
    (["check", *GOOD], 0, "checked 3 files"),
    (["check", BROKEN], 1, "17 errors, 3 warnings"),
    (["check", "examples"], 1, "checked 5 files"),  # a folder: the designs under it
    (["check", "examples/no-such-file.json"], 2, "no such file"),
    (["check", *GOOD, "examples/no-such-file.json"], 2, "no such file"),
    (["check"], 2, "usage:"),
    (["check", "--format", "xml", BROKEN], 2, "invalid choice"),
    ([], 2, "usage:"),
]


@pytest.mark.parametrize("args,code,stderr_part", ARG_CASES)
def test_exit_codes_on_arguments(hwf, args, code, stderr_part):
    result = hwf(*args)
    assert result.code == code
    assert stderr_part in result.stderr
    assert "Traceback" not in result.stderr


def test_version_is_the_installed_distribution(hwf):
    from importlib.metadata import version

    result = hwf("--version")
    assert (result.code, result.stdout, result.stderr) == (0, f"hwf {version('hwf-lsp')}\n", "")


def utf16_offset_text(text: str, line: int, character: int) -> int:
    """The Python index of an LSP position (0-based line, UTF-16 character)."""
    lines = text.split("\n")
    prefix = sum(len(x) + 1 for x in lines[:line])
    units = 0
    for index, char in enumerate(lines[line]):
        if units >= character:
            return prefix + index
        units += 2 if ord(char) > 0xFFFF else 1
    return prefix + len(lines[line])


def range_text(text: str, rng: dict) -> str:
    start = utf16_offset_text(text, rng["start"]["line"], rng["start"]["character"])
    end = utf16_offset_text(text, rng["end"]["line"], rng["end"]["character"])
    return text[start:end]


def test_json_format_matches_expected_file(hwf):
    result = hwf("check", "--format", "json", BROKEN)
    assert result.code == 1
    report = result.json()
    assert [entry["path"] for entry in report] == [BROKEN]
    defects = report[0]["defects"]
    expected = json.loads((EXAMPLES / "broken.expected.json").read_text(encoding="utf-8"))
    key = lambda d: (str(d["node"]), str(d["field"]), d["rule"], d["severity"])  # noqa: E731
    assert sorted(map(key, defects)) == sorted(map(key, expected))
    for defect in defects:
        assert {"node", "field", "msg", "range"} <= set(defect)
        start, end = defect["range"]["start"], defect["range"]["end"]
        assert (start["line"], start["character"]) <= (end["line"], end["character"])
        assert isinstance(defect["msg"], str) and defect["msg"]


# (node, field, rule) -> the exact source text the range covers in broken.hwf.json
RANGE_TEXT = {
    ("fetch", "retries", "retries"): "2.5",
    ("robot", "type", "known-kind"): '"robot"',
    ("post", "target", "delivery"): '"reviews"',
    ("memo", "color", "note-color"): '"purple"',
    ("gate", "expression", "condition"): "=",  # the "=" of "=>"
    ("summarize", "promt", "unknown-field"): '"promt"',
}


def test_json_ranges_cover_the_offending_text(hwf):
    text = (EXAMPLES / "broken.hwf.json").read_text(encoding="utf-8")
    defects = hwf("check", "--format", "json", BROKEN).json()[0]["defects"]
    seen = {}
    for d in defects:
        seen.setdefault((d["node"], d["field"], d["rule"]), range_text(text, d["range"]))
    for key, wanted in RANGE_TEXT.items():
        assert seen[key] == wanted, key


def test_ranges_count_utf16_units_and_text_is_one_based(hwf, tmp_path):
    # 😀 is one code point but two UTF-16 units: the defect's column must count it as 2.
    text = '{"name": "x", "nodes": [{"id": "t", "type": "trigger", "title": "😀", ' \
           '"color": 1}, {"id": "n", "type": "note", "title": "😀", "color": "pink"}]}'
    path = write(tmp_path, "emoji.hwf.json", text)
    entry = hwf("check", "--format", "json", path).json()[0]["defects"]
    color = next(d for d in entry if d["field"] == "color" and d["node"] == "n")
    assert range_text(text, color["range"]) == '"pink"'
    python_index = text.index('"pink"')
    assert color["range"]["start"]["character"] == python_index + 2  # two emoji, +1 unit each
    line = hwf("check", path).stdout.splitlines()
    wanted = f"{path}:1:{python_index + 2 + 1}: error[note-color] color must be"
    assert any(x.startswith(wanted) for x in line), line


def test_text_format_lines(hwf):
    lines = hwf("check", BROKEN).stdout.splitlines()
    assert len(lines) == 20
    assert lines[0] == ("examples/broken.hwf.json:5:36: error[one-trigger] a second trigger: "
                        "\"start\" is already the trigger, and a design has exactly one")
    assert sum(" warning[" in x for x in lines) == 3


def test_json_syntax_error_has_null_node_and_field(hwf, tmp_path):
    path = write(tmp_path, "cut.hwf.json", '{"name": "x",\n "nodes": [')
    defects = hwf("check", "--format", "json", path).json()[0]["defects"]
    syntax = [d for d in defects if d["rule"] == "json-syntax"]
    assert syntax and all(d["node"] is None and d["field"] is None for d in syntax)
    assert syntax[0]["range"]["start"]["line"] == 1


def test_unreadable_file_in_json_report(hwf, tmp_path):
    result = hwf("check", "--format", "json", GOOD[0], str(tmp_path / "missing.json"))
    assert result.code == 2
    report = result.json()
    assert report[0] == {"path": GOOD[0], "defects": []}
    assert report[1]["defects"] == [] and "no such file" in report[1]["error"]


# (BOMs on disk, does the design store load it, what `hwf check` says at 1:1)
BOM_CASES = [(0, True, None), (1, True, None), (2, False, "byte order mark"),
             (3, False, "byte order mark")]


@pytest.mark.parametrize("boms,store_loads,message", BOM_CASES)
def test_check_and_the_design_store_agree_on_boms(hwf, tmp_path, boms, store_loads, message):
    """One BOM is dropped when the file is read; one left in the text is an error (BUG-H9-1)."""
    from hwf_lsp.workflow.stores import DesignStore

    store = DesignStore(tmp_path / "designs")
    store.root.mkdir()
    data = b"\xef\xbb\xbf" * boms + VALID_DESIGN.encode()
    path = write(store.root, "x.json", data)
    try:
        store.load("x")
        loaded = True
    except ValueError:
        loaded = False
    assert loaded == store_loads
    result = hwf("check", "--format", "json", path)
    assert result.code == (0 if store_loads else 1)
    defects = result.json()[0]["defects"]
    if message is None:
        assert defects == []
    else:  # the stray BOMs, right where the editor shows them (the first one is gone)
        assert message in defects[0]["msg"]
        assert defects[0]["range"] == {"start": {"line": 0, "character": 0},
                                       "end": {"line": 0, "character": boms - 1}}
