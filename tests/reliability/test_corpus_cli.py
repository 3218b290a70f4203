"""`hwf check` on the bad-input corpus: never a crash, always a clear answer.

All text cases go to ONE `hwf check --format json` process (thousands of
paths); the invalid-UTF-8 files each get their own run, which must exit 2
with a one-line reason.  Figures are written to `corpus-cli.json` in the
pytest temp dir and printed, for docs/reliability.md.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from corpus import Case, corpus
from oracle import lsp_lines, needs_an_error, range_problems

HWF = [sys.executable, "-m", "hwf_lsp.cli"]
REQUIRED_KEYS = {"node", "field", "msg", "range"}


def _write(cases: list[Case], directory: Path) -> list[str]:
    names = []
    for number, case in enumerate(cases):
        name = f"c{number:05d}.hwf.json"
        (directory / name).write_bytes(case.data)
        names.append(name)
    return names


def _hwf(args: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "HERMES_HOME": str(cwd / "home"), "PYTHONPATH": str(Path.cwd())}
    return subprocess.run([*HWF, *args], cwd=cwd, env=env, capture_output=True, timeout=timeout)


def _run_corpus(tmp_path: Path, scale: str) -> dict:
    cases = [case for case in corpus(scale) if case.text is not None]
    names = _write(cases, tmp_path)
    done = _hwf(["check", "--format", "json", *names], tmp_path)
    stderr = done.stderr.decode("utf-8", "replace")
    assert "Traceback" not in stderr, stderr[-3000:]
    undecodable = sum(1 for case in cases if _utf8(case) is None)  # raw lone surrogates
    assert done.returncode == (2 if undecodable else 1), (done.returncode, stderr[-2000:])
    report = json.loads(done.stdout)
    assert [entry["path"] for entry in report] == names  # one entry per file, in order

    problems: list[str] = []
    with_errors = 0
    for case, entry in zip(cases, report, strict=True):
        text = _utf8(case)
        if text is None:
            if "UTF-8" not in entry.get("error", ""):
                problems.append(f"{case.label}: invalid UTF-8 on disk not refused: {entry}")
            continue
        invalid = needs_an_error(text)  # the oracle allows one leading BOM, no more
        text = text.removeprefix("\ufeff")  # ranges: the CLI drops one BOM, as editors do
        lines = lsp_lines(text)
        defects = entry["defects"]
        errors = [d for d in defects if d.get("severity", "error") == "error"]
        with_errors += bool(errors)
        if invalid and not errors:
            problems.append(f"{case.label}: no error for an invalid design")
        for defect in defects:
            if missing := REQUIRED_KEYS - defect.keys():
                problems.append(f"{case.label}: defect without {sorted(missing)}: {defect}")
                continue
            if not (isinstance(defect["msg"], str) and defect["msg"].strip()):
                problems.append(f"{case.label}: empty message: {defect}")
            if len(defect["msg"]) > 2000:
                problems.append(f"{case.label}: a {len(defect['msg'])}-character message")
            problems += [f"{case.label}: {p}" for p in range_problems(lines, defect["range"])]
    assert problems == [], "\n".join(problems[:40])
    return {"inputs": len(cases), "bytes": sum(c.size for c in cases),
            "inputs_with_errors": with_errors, "refused_as_invalid_utf8": undecodable}


def _utf8(case: Case) -> str | None:
    try:
        return case.data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def test_hwf_check_answers_every_corpus_input(tmp_path: Path, record_property) -> None:
    figures = _run_corpus(tmp_path, "test")
    record_property("figures", figures)
    print(f"\nhwf check corpus: {figures}")
    assert figures["inputs"] > 6000


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_hwf_check_soak_corpus(tmp_path: Path) -> None:
    figures = _run_corpus(tmp_path, "soak")
    print(f"\nhwf check soak corpus: {figures}")


def test_invalid_utf8_is_a_clear_error_with_exit_2(tmp_path: Path) -> None:
    cases = [case for case in corpus("test") if case.text is None]
    assert len(cases) >= 5
    names = _write(cases, tmp_path)
    for case, name in zip(cases, names, strict=True):
        done = _hwf(["check", "--format", "json", name], tmp_path, timeout=60)
        stderr = done.stderr.decode("utf-8", "replace")
        assert done.returncode == 2, (case.label, done.returncode, stderr)
        assert "Traceback" not in stderr, stderr
        lines = [line for line in stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and name in lines[0] and "UTF-8" in lines[0], (case.label, stderr)
    # mixed with good files: still exit 2, and the good files are still checked
    good = tmp_path / "good.hwf.json"
    good.write_text('{"nodes": []}')
    done = _hwf(["check", "--format", "json", names[0], good.name], tmp_path, timeout=60)
    assert done.returncode == 2
    report = json.loads(done.stdout)
    assert report[0]["path"] == names[0] and "UTF-8" in report[0]["error"]
    assert report[1]["defects"], report[1]


@pytest.mark.parametrize("args, expected", [
    (["check", "--format", "json", "does-not-exist.hwf.json"], "no such file"),
    (["check", "--format", "json", "."], "directory"),
    (["check", "--format", "xml", "x.json"], "invalid choice"),
    (["check"], "PATH"),
])
def test_usage_errors_exit_2_without_traceback(tmp_path: Path, args: list[str],
                                               expected: str) -> None:
    done = _hwf(args, tmp_path, timeout=60)
    stderr = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 2, stderr
    assert "Traceback" not in stderr and expected.lower() in stderr.lower(), stderr
