"""`hwf check --format github|sarif`: the check's findings in the forms CI systems read.

`github`: workflow commands (`::error file=…,line=…,col=…,endLine=…,endColumn=…::msg`),
which GitHub Actions shows as annotations on the pull request's lines.  `sarif`: a SARIF
2.1.0 log (code scanning, GitLab, Azure DevOps…).  Both take the contract-2 report that
`hwf check --format json` prints, so the places are the editor's: lines and columns
1-based here, columns counted in UTF-16 code units (SARIF says so in `columnKind`).
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import quote

from hwf_lsp.rules.vocabulary import EDITOR_RULES, RULES

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _github_data(text: str) -> str:
    """A workflow command's message, escaped as the runner unescapes it."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _github_property(text: str) -> str:
    """A workflow command's property value: `:` and `,` end it unless escaped."""
    return _github_data(text).replace(":", "%3A").replace(",", "%2C")


def _level(entry: dict[str, Any]) -> str:
    return "warning" if str(entry.get("severity", "error")).lower() == "warning" else "error"


def github_lines(report: list[dict[str, Any]]) -> list[str]:
    """One workflow command per finding (and per unreadable file, at its first line)."""
    lines = []
    for item in report:
        path = _github_property(item["path"])
        if "error" in item:
            lines.append(f"::error file={path},line=1,title=hwf check::"
                         f"{_github_data(item['error'])}")
            continue
        for entry in item["defects"]:
            start, end = entry["range"]["start"], entry["range"]["end"]
            title = _github_property(f"hwf {entry.get('rule') or 'check'}")
            lines.append(
                f"::{_level(entry)} file={path},line={start['line'] + 1},"
                f"col={start['character'] + 1},endLine={end['line'] + 1},"
                f"endColumn={end['character'] + 1},title={title}::{_github_data(entry['msg'])}")
    return lines


def artifact_uri(path: str) -> str:
    """A SARIF artifact location: the path as a relative URI reference (`/` separators,
    percent-encoded), or a `file://` URI for an absolute path."""
    posix = path.replace(os.sep, "/") if os.sep != "/" else path
    posix = "/" + posix if os.path.isabs(path) and not posix.startswith("/") else posix
    # a name that is not valid UTF-8 reaches us with its bytes as surrogates: the URI
    # percent-encodes those bytes, the file's real name
    uri = quote(os.fsencode(posix))
    return "file://" + uri if os.path.isabs(path) else uri


def _rules() -> list[dict[str, Any]]:
    return [{"id": rule, "shortDescription": {"text": text},
             "defaultConfiguration": {"level": "error" if rule in RULES else "warning"}}
            for rule, text in {**RULES, **EDITOR_RULES}.items()]


def _region(entry: dict[str, Any]) -> dict[str, int]:
    start, end = entry["range"]["start"], entry["range"]["end"]
    return {"startLine": start["line"] + 1, "startColumn": start["character"] + 1,
            "endLine": end["line"] + 1, "endColumn": end["character"] + 1}


def _result(item: dict[str, Any], entry: dict[str, Any], rule_index: dict[str, int],
            ) -> dict[str, Any]:
    result: dict[str, Any] = {"message": {"text": entry["msg"]}, "level": _level(entry)}
    rule = entry.get("rule")
    if rule in rule_index:
        result["ruleId"] = rule
        result["ruleIndex"] = rule_index[rule]
    result["locations"] = [{"physicalLocation": {
        "artifactLocation": {"uri": artifact_uri(item["path"])},
        "region": _region(entry)}}]
    node = entry.get("node")
    if isinstance(node, str):
        result["properties"] = {"node": node, "field": entry.get("field")}
    return result


def sarif_log(report: list[dict[str, Any]], version: str | None = None) -> dict[str, Any]:
    """The SARIF 2.1.0 log of a check report: one run, the rule table as the tool's rules,
    a result per finding; an unreadable file is a tool notification and makes the
    invocation unsuccessful."""
    rules = _rules()
    rule_index = {rule["id"]: i for i, rule in enumerate(rules)}
    driver: dict[str, Any] = {"name": "hwf", "rules": rules}
    if version and version != "unknown":
        driver["version"] = version
    results = [_result(item, entry, rule_index)
               for item in report if "error" not in item for entry in item["defects"]]
    notifications = [{"level": "error", "message": {"text": item["error"]},
                      "locations": [{"physicalLocation": {
                          "artifactLocation": {"uri": artifact_uri(item["path"])}}}]}
                     for item in report if "error" in item]
    invocation: dict[str, Any] = {"executionSuccessful": not notifications}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [{
        "tool": {"driver": driver},
        "invocations": [invocation],
        "columnKind": "utf16CodeUnits",
        "results": results,
    }]}


def print_report(fmt: str, report: list[dict[str, Any]]) -> None:
    """Print `report` (hwf check's contract-2 list) as `fmt` on stdout."""
    from hwf_lsp.cli.errors import out, out_json

    if fmt == "github":
        for line in github_lines(report):
            out(line)
    else:
        from hwf_lsp import __version__

        out_json(sarif_log(report, __version__))
