"""`hwf test --format junit`: JUnit XML, the report CI systems read (GitHub, GitLab, Jenkins).

One `<testsuite>` per test file, one `<testcase>` per case; a failed case has a
`<failure>` whose message is its first difference and whose text lists them all.  A test
file that cannot run is a suite with one `<error>` case per error, so CI shows it too.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
"""Characters XML 1.0 cannot hold at all, even escaped."""

_LINE_BREAKING = re.compile("[\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""What a terminal or a line reader would act on (NEL, U+2028/U+2029 break lines; C1
controls, bidirectional overrides): written as character references, the same
characters to an XML reader, so every line of the document ends at its own `\\n`."""


def _xml_safe(text: str) -> str:
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100
                        else f"\\u{ord(m.group()):04x}", text)


def _classname(path: str) -> str:
    """`examples/review-flow.hwf-test.json` -> `examples.review-flow`."""
    stem = path[: -len(".hwf-test.json")] if path.endswith(".hwf-test.json") else path
    return _xml_safe(stem.replace("\\", "/").strip("./").replace("/", "."))


def junit_xml(reports: list[Any]) -> str:
    """The XML document of `hwf test`'s file reports (`cli.design_test_command.FileReport`)."""
    root = ET.Element("testsuites", name="hwf test")
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for report in reports:
        suite = ET.SubElement(root, "testsuite", name=_xml_safe(report.path))
        counts = {"tests": 0, "failures": 0, "errors": 0}
        seconds = 0.0
        for error in report.errors:
            case = ET.SubElement(suite, "testcase", classname=_classname(report.path),
                                 name=_xml_safe(error.case or "(test file)"),
                                 file=_xml_safe(report.path), time="0")
            ET.SubElement(case, "error", message=_xml_safe(str(error)),
                          type="invalid test file").text = _xml_safe(str(error))
            counts["tests"] += 1
            counts["errors"] += 1
        for result in report.cases:
            case = ET.SubElement(suite, "testcase", classname=_classname(report.path),
                                 name=_xml_safe(result.name), file=_xml_safe(report.path),
                                 time=f"{result.seconds:.3f}")
            seconds += result.seconds
            counts["tests"] += 1
            if result.failures:
                counts["failures"] += 1
                ET.SubElement(case, "failure", message=_xml_safe(result.failures[0]),
                              type="expectation").text = _xml_safe("\n".join(result.failures))
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
        suite.set("skipped", "0")
        suite.set("time", f"{seconds:.3f}")
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root)
    text = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + _LINE_BREAKING.sub(
        lambda m: f"&#x{ord(m.group()):x};", text)

