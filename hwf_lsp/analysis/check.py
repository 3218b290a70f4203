"""The one check pipeline: text -> located findings.  `hwf check` and the server share it.

Order: JSON syntax errors, then the rulebook's defects of the recovered value
(the same verdict the canvas gives), then editor warnings.  It runs on every
keystroke that incremental.py cannot take, so nothing is done twice: one parse, one
validation, one lint, and positions only for the findings (the tree of a valid
document is built only when some finding needs a range).
"""

from __future__ import annotations

from typing import Any

from ..workflow.revalidate import check_graph
from .incremental import Recheckable, recheckable
from .jsontree import ParsedDocument, parse
from .lint import sorted_warnings
from .locate import Finding, findings_for
from .positions import LineIndex

__all__ = ["Finding", "check_document", "check_recheckable", "check_text",
           "finding_to_contract"]

ERROR = "error"


def check_recheckable(doc: ParsedDocument, *, run_outputs: dict | None = None
                      ) -> tuple[list[Finding], Recheckable | None]:
    """Every finding for `doc` (syntax errors, rulebook errors, then warnings, each group
    by start offset), and the state a keystroke re-check starts from (None when `doc`
    has syntax errors).  `run_outputs` is the newest run's `outputs` for this design
    (enables the path-absent warning)."""
    syntax = [Finding("json-syntax", ERROR, issue.msg, issue.start, issue.end)
              for issue in doc.errors]
    syntax.sort(key=_by_start)
    value = doc.to_python()
    graph = check_graph(value)
    ranges: dict[tuple, tuple[int, int]] = {}
    errors = findings_for(doc, graph.defects, ERROR, ranges=ranges)
    errors.sort(key=_by_start)
    findings = syntax + errors + sorted_warnings(doc, value, run_outputs)
    return findings, recheckable(doc, findings, graph, ranges, run_outputs)


def check_document(doc: ParsedDocument, *, run_outputs: dict | None = None) -> list[Finding]:
    """Every finding for `doc`: syntax errors, rulebook errors, then warnings."""
    return check_recheckable(doc, run_outputs=run_outputs)[0]


def check_text(text: str, **kw: Any) -> tuple[ParsedDocument, list[Finding]]:
    """Parse and check `text`; the document is returned for follow-up queries."""
    doc = parse(text)
    return doc, check_document(doc, **kw)


def finding_to_contract(f: Finding, index: LineIndex, *, encoding: str = "utf-16",
                        with_rule: bool = False) -> dict[str, Any]:
    """Contract 2's defect entry: node, field, msg, index (node defects), range.

    Lines and characters are 0-based, characters in UTF-16 code units as LSP
    counts them.  `with_rule` adds `rule` and `severity` (not part of the contract).
    """
    start_line, start_char = index.position(f.start, encoding)
    end_line, end_char = index.position(f.end, encoding)
    out: dict[str, Any] = {"node": f.node, "field": f.field, "msg": f.msg}
    if f.index is not None:
        out["index"] = f.index
    out["range"] = {
        "start": {"line": start_line, "character": start_char},
        "end": {"line": end_line, "character": end_char},
    }
    if with_rule:
        out["rule"] = f.rule
        out["severity"] = f.severity
    return out


def _by_start(finding: Finding) -> tuple[int, int]:
    return finding.start, finding.end
