"""The one check pipeline: text -> located findings.  `hwf check` and the server share it.

Order: JSON syntax errors, then the rulebook's defects of the recovered value
(`collect_defects`, the same verdict the canvas gives), then editor warnings.  On text
with syntax errors, the findings that exist only because of what a broken node lost are
left out (`recovery.py`): the error costs that node, not the rest.  One
parse, one validation, one lint, and positions only for the findings (the tree of a
valid document is built only when some finding needs a range).
"""

from __future__ import annotations

from typing import Any

from ..jsontext.jsontree import ParsedDocument, parse
from ..jsontext.positions import LineIndex
from ..rules.validator import collect_defects
from ..rules.vocabulary import MAX_NODES
from .lint import sorted_warnings
from .locate import Finding, findings_for
from .recovery import spare_the_rest
from .suggestions import with_suggestions

__all__ = ["Finding", "check_document", "check_text", "finding_to_contract", "rulebook_findings",
           "rules_waiting", "syntax_findings"]

ERROR = "error"
INFORMATION = "information"

def check_document(doc: ParsedDocument, *, run_outputs: dict | None = None) -> list[Finding]:
    """Every finding for `doc`: syntax errors, rulebook errors, then warnings, each group
    by start offset.  `run_outputs` is the newest run's `outputs` for this design
    (enables the path-absent warning).

    A text with no JSON value at all (empty, blanks, only junk) has its syntax errors
    only: the rulebook would add "a design must be a JSON object, got null" at the same
    spot, saying nothing the syntax error does not."""
    syntax = syntax_findings(doc)
    if doc.root is None:
        return syntax
    value = doc.to_python()
    findings = syntax + rulebook_findings(doc, value) + sorted_warnings(doc, value, run_outputs)
    return spare_the_rest(doc, findings) if syntax else findings


def syntax_findings(doc: ParsedDocument) -> list[Finding]:
    """The JSON syntax errors of `doc` by start offset: the words and places `hwf check`,
    the editor and `hwf run` all show."""
    syntax = [Finding("json-syntax", ERROR, issue.msg, issue.start, issue.end)
              for issue in doc.errors]
    syntax.sort(key=_by_start)
    return syntax


def rulebook_findings(doc: ParsedDocument, value: Any) -> list[Finding]:
    """The rulebook's defects of `value` (`collect_defects`), with the editor's did-you-mean
    (`with_suggestions`), located in `doc`, by start offset."""
    defects = collect_defects(value)
    errors = findings_for(doc, with_suggestions(defects, value), ERROR, value)
    errors.sort(key=_by_start)
    return errors


def rules_waiting(findings: list[Finding]) -> list[Finding]:
    """`findings` and, beside a design's over-the-cap error, the editor's word that the
    other rules wait: the rulebook judges nothing else of a design over MAX_NODES (the
    spec's graph-shape rule comes first), so a broken node there shows nothing until the
    design is back under the cap.  An information diagnostic, never an error."""
    for f in findings:
        if f.rule == "graph-shape" and f.severity == ERROR and f.msg.startswith(_OVER_CAP):
            note = Finding("graph-shape", INFORMATION,
                           f"the other rules wait until the design has at most {MAX_NODES} "
                           "nodes: nothing else is checked before", f.start, f.end,
                           field=f.field)
            return [*findings, note]
    return findings


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


_OVER_CAP = f"a design has at most {MAX_NODES} nodes"


def _by_start(finding: Finding) -> tuple[int, int]:
    return finding.start, finding.end
