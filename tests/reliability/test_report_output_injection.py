"""What a file or case name can do to the reports CI reads (issue 45, B5, B6, B7).

- B5: no line of `hwf check`/`hwf test`'s text output starts (after blanks) with `::`,
  the GitHub Actions workflow-command prefix, whatever a file is named (was: a file named
  `::error title=X::….hwf.json` was acted on by the runner).
- B6: `--format junit`: U+2028, U+2029 and NEL in a case name stay inside their line and
  the XML reads back the same name (was: printed with `splitlines()`, each a line break).
- B7: `hwf check --format sarif` on a file name that is not valid UTF-8: a SARIF log
  whose artifact URI is the name's bytes percent-encoded (was: an internal error).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hostile import ENV, REPO
from support.design_tests import case, hwf_test, write_test

BROKEN = REPO / "examples" / "broken.hwf.json"
INJECTING = ["::error title=X::pwned.hwf.json", "::stop-commands::tok.hwf.json",
             "  ::warning::x.hwf.json"]


def hwf_in(folder: Path, *args: str | bytes) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "hwf_lsp.cli", *args], cwd=folder, env=ENV,
                          capture_output=True, timeout=60, check=False)


def command_lines(output: bytes) -> list[str]:
    """Lines a GitHub Actions runner would take as workflow commands."""
    return [line for line in output.decode("utf-8", "replace").split("\n")
            if line.lstrip().startswith("::")]


@pytest.mark.parametrize("name", INJECTING)
def test_check_text_never_starts_a_line_with_a_workflow_command(tmp_path, name):
    shutil.copy(BROKEN, tmp_path / name)
    done = hwf_in(tmp_path, "check", name)
    assert done.returncode == 1, done.stderr
    assert command_lines(done.stdout + done.stderr) == []
    assert f"./{name.lstrip()}" in done.stdout.decode() or f"./{name}" in done.stdout.decode()


@pytest.mark.parametrize("name", [n.replace(".hwf.json", ".hwf-test.json") for n in INJECTING])
@pytest.mark.parametrize("args", [[], ["--write-expectations"]], ids=["run", "write"])
def test_test_text_never_starts_a_line_with_a_workflow_command(tmp_path, name, args):
    write_test(tmp_path, hwf_test(case("c", {"status": "awaiting_agent"})), name=name)
    write_test(tmp_path, hwf_test(case("c", agents={"nope": {}})), name=f"{name}.bad")
    done = hwf_in(tmp_path, "test", *args, name, f"{name}.bad")
    assert done.returncode == 2, done.stderr
    assert name.strip() in (done.stdout + done.stderr).decode()
    assert command_lines(done.stdout + done.stderr) == []


SEPARATORS = "a\u2028b\u2029c\x85d"


def test_junit_keeps_line_separators_inside_the_case_name(tmp_path):
    write_test(tmp_path, hwf_test(case(SEPARATORS, {"status": "awaiting_agent"})))
    done = hwf_in(tmp_path, "test", "--format", "junit", ".")
    assert done.returncode == 0, done.stderr
    text = done.stdout.decode("utf-8")
    assert not {"\u2028", "\u2029", "\x85"} & set(text)
    assert text.count("\n") == len(text.splitlines())  # no line break but "\n"
    [testcase] = ET.fromstring(text.split("\n", 1)[1]).iter("testcase")
    assert testcase.get("name") == SEPARATORS


def test_sarif_on_a_file_name_that_is_not_utf8(tmp_path):
    name = b"bad\xff.hwf.json"
    shutil.copy(BROKEN, os.path.join(os.fsencode(tmp_path), name))
    done = hwf_in(tmp_path, "check", "--format", "sarif", name)
    assert b"internal error" not in done.stderr
    assert done.returncode == 1, done.stderr
    log = json.loads(done.stdout)
    uris = {result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            for result in log["runs"][0]["results"]}
    assert uris == {"bad%FF.hwf.json"}
