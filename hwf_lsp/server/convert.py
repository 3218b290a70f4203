"""The only place that turns analysis results (offsets, dataclasses) into lsprotocol types.

Offsets are Python string indices; positions are (line, character) counted in
the encoding negotiated with the client (UTF-16 unless the client offered
UTF-8 or UTF-32 first).  Keeping this in one module means a wrong unit can only
be wrong here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lsprotocol import types

from hwf_lsp.analysis.positions import LineIndex
from hwf_lsp.workflow.vocabulary import EDITOR_RULES, RULES

SOURCE = "hwf"

RULES_DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
"""docs/rules.md, one anchor per rule code; linked from every diagnostic when it is there
(a source checkout or an editable install; a wheel has no docs/)."""
RULE_LINKS: dict[str, dict[str, str]] = (
    {code: {"href": f"{RULES_DOC.as_uri()}#{code}"} for code in {**RULES, **EDITOR_RULES}}
    if RULES_DOC.is_file() else {})
"""Rule code -> the codeDescription of its diagnostics (one shared dict per rule)."""
UNNECESSARY = [int(types.DiagnosticTag.Unnecessary)]

_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "info": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}


def encoding_name(kind: Any) -> str:
    """'utf-16', 'utf-8' or 'utf-32' from a PositionEncodingKind (or its string)."""
    value = getattr(kind, "value", kind)
    if isinstance(value, str) and value.lower() in ("utf-8", "utf-32"):
        return value.lower()
    return "utf-16"


def position(lines: LineIndex, offset: int, encoding: str) -> types.Position:
    line, character = lines.position(offset, encoding)
    return types.Position(line=line, character=character)


def to_range(lines: LineIndex, start: int, end: int, encoding: str) -> types.Range:
    if end < start:
        end = start
    return types.Range(
        start=position(lines, start, encoding), end=position(lines, end, encoding)
    )


def to_offset(lines: LineIndex, pos: types.Position, encoding: str) -> int:
    return lines.offset(pos.line, pos.character, encoding)


def severity(name: Any) -> types.DiagnosticSeverity:
    return _SEVERITY.get(str(getattr(name, "value", name)).lower(), types.DiagnosticSeverity.Error)


def diagnostic(finding: Any, lines: LineIndex, encoding: str, uri: str = "") -> types.Diagnostic:
    """A check.Finding as a Diagnostic: code = the rule, source = "hwf", its related places
    (in `uri`), its tags and the link to its rule."""
    data: dict[str, Any] = {}
    for key in ("node", "field", "index"):
        value = getattr(finding, key, None)
        if value is not None:
            data[key] = value
    link = RULE_LINKS.get(finding.rule)
    return types.Diagnostic(
        range=to_range(lines, finding.start, finding.end, encoding),
        message=finding.msg,
        severity=severity(finding.severity),
        code=finding.rule,
        code_description=types.CodeDescription(href=link["href"]) if link else None,
        source=SOURCE,
        tags=[types.DiagnosticTag.Unnecessary] if finding.unnecessary else None,
        related_information=[
            types.DiagnosticRelatedInformation(
                location=location(uri, lines, r.start, r.end, encoding), message=r.msg)
            for r in finding.related] if finding.related and uri else None,
        data=data or None,
    )


# --- the publishDiagnostics hot path: plain JSON-ready dicts ----------------------
#
# Diagnostics go out on every keystroke.  Building lsprotocol objects (attrs with
# validators) and unstructuring them with cattrs cost more than the whole round trip
# of a bare pygls server, so this one path builds the wire form directly: the same
# fields `diagnostic` + cattrs produce (None fields omitted, enums as their numbers),
# ready for the C JSON encoder.  (The LSP tests' client structures what arrives back
# into lsprotocol Diagnostics, so a drift from the real type fails them.)

_SEVERITY_NUMBER = {name: int(value) for name, value in _SEVERITY.items()}


def _wire_position(lines: LineIndex, offset: int, encoding: str) -> dict[str, int]:
    line, character = lines.position(offset, encoding)
    return {"line": line, "character": character}


def diagnostic_dict(finding: Any, positions: dict[int, dict[str, int]],
                    uri: str = "") -> dict[str, Any]:
    """`diagnostic(finding, ..., uri)` in its JSON wire form (what cattrs would produce),
    with the positions of its offsets from `positions`."""
    start, end = finding.start, finding.end
    out: dict[str, Any] = {
        "range": {"start": positions[start], "end": positions[max(start, end)]},
        "message": finding.msg,
        "severity": _SEVERITY_NUMBER.get(
            str(getattr(finding.severity, "value", finding.severity)).lower(), 1),
        "code": finding.rule,
        "source": SOURCE,
    }
    link = RULE_LINKS.get(finding.rule)
    if link is not None:
        out["codeDescription"] = link
    if finding.unnecessary:
        out["tags"] = UNNECESSARY
    if finding.related and uri:
        out["relatedInformation"] = [
            {"location": {"uri": uri, "range": {"start": positions[r.start],
                                                "end": positions[max(r.start, r.end)]}},
             "message": r.msg}
            for r in finding.related]
    data: dict[str, Any] = {}
    for key in ("node", "field", "index"):
        value = getattr(finding, key, None)
        if value is not None:
            data[key] = value
    if data:
        out["data"] = data
    return out


@dataclass(frozen=True, slots=True)
class WirePublish:
    """publishDiagnostics params already in wire form: what `HwfServer.
    text_document_publish_diagnostics` sends without cattrs.  Same attribute names as
    `types.PublishDiagnosticsParams`, so code reading either works."""

    uri: str
    diagnostics: list[dict[str, Any]]
    version: int | None = None

    def as_params(self) -> dict[str, Any]:
        params: dict[str, Any] = {"uri": self.uri, "diagnostics": self.diagnostics}
        if self.version is not None:
            params["version"] = self.version
        return params


def diagnostic_dicts(findings: list[Any], lines: LineIndex, encoding: str,
                     uri: str = "") -> list[dict[str, Any]]:
    """Every finding in the wire form of `Diagnostic` (see diagnostic_dict).

    Positions are looked up in text order, whatever the findings' order (syntax, then
    rulebook, then warnings): LineIndex then counts line breaks forward, in one pass over
    the text at most, instead of back and forth."""
    offsets = {offset for f in findings for offset in (f.start, max(f.start, f.end))}
    for f in findings:
        if f.related:
            offsets.update(offset for r in f.related for offset in (r.start, max(r.start, r.end)))
    positions = {offset: _wire_position(lines, offset, encoding) for offset in sorted(offsets)}
    return [diagnostic_dict(f, positions, uri) for f in findings]


# --- completion ----------------------------------------------------------------

_COMPLETION_KIND = {
    "kind": types.CompletionItemKind.Class,
    "field": types.CompletionItemKind.Property,
    "property": types.CompletionItemKind.Property,
    "enum": types.CompletionItemKind.EnumMember,
    "node": types.CompletionItemKind.Reference,
    "path": types.CompletionItemKind.Field,
    "operator": types.CompletionItemKind.Operator,
    "literal": types.CompletionItemKind.Value,
    "snippet": types.CompletionItemKind.Snippet,
}


def markup(text: str, markdown: bool) -> types.MarkupContent:
    kind = types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText
    return types.MarkupContent(kind=kind, value=text)


_COMPLETION_KIND_NUMBER = {name: int(kind) for name, kind in _COMPLETION_KIND.items()}
_MARKUP_KIND = {True: types.MarkupKind.Markdown.value, False: types.MarkupKind.PlainText.value}
_SNIPPET = int(types.InsertTextFormat.Snippet)
_PLAIN_TEXT = int(types.InsertTextFormat.PlainText)
_TEXT_KIND = int(types.CompletionItemKind.Text)


def completion_list_dict(items: Any, lines: LineIndex, encoding: str,
                         markdown: bool) -> dict[str, Any]:
    """analysis.completion's Completions as a CompletionList in its JSON wire form, each
    item with a text edit: what building `types.CompletionItem`s and unstructuring them
    with cattrs gives (None fields left out, enums as numbers), without either; 100 node
    ids of a 5,000-node design took 4 ms that way.  Like `diagnostic_dicts`, positions
    are looked up once per offset, in text order."""
    offsets = {offset for item in items for offset in (item.start, max(item.start, item.end))}
    for item in items:
        for start, end, _ in item.additional_edits:
            offsets.update((start, max(start, end)))
    positions = {offset: _wire_position(lines, offset, encoding) for offset in sorted(offsets)}
    return {"isIncomplete": items.incomplete,
            "items": [_completion_item_dict(item, positions, markdown) for item in items]}


def _completion_item_dict(item: Any, positions: dict[int, dict[str, int]],
                          markdown: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"label": item.label,
                           "kind": _COMPLETION_KIND_NUMBER.get(item.kind, _TEXT_KIND)}
    if item.detail is not None:
        out["detail"] = item.detail
    if item.documentation:
        out["documentation"] = {"kind": _MARKUP_KIND[markdown], "value": item.documentation}
    if item.sort_text is not None:
        out["sortText"] = item.sort_text
    if item.filter_text is not None:
        out["filterText"] = item.filter_text
    if item.preselect:
        out["preselect"] = True
    out["insertTextFormat"] = _SNIPPET if item.snippet else _PLAIN_TEXT
    out["textEdit"] = _edit_dict(positions, item.start, item.end, item.insert_text)
    if item.additional_edits:
        out["additionalTextEdits"] = [_edit_dict(positions, start, end, new)
                                      for start, end, new in item.additional_edits]
    return out


def _edit_dict(positions: dict[int, dict[str, int]], start: int, end: int,
               new_text: str) -> dict[str, Any]:
    return {"range": {"start": positions[start], "end": positions[max(start, end)]},
            "newText": new_text}


# --- edits, locations, hover -----------------------------------------------------


def diagnostics(findings: list[Any], lines: LineIndex, encoding: str,
                uri: str = "") -> list[types.Diagnostic]:
    return [diagnostic(f, lines, encoding, uri) for f in findings]


def text_edit(lines: LineIndex, start: int, end: int, new_text: str,
              encoding: str) -> types.TextEdit:
    return types.TextEdit(range=to_range(lines, start, end, encoding), new_text=new_text)


def location(uri: str, lines: LineIndex, start: int, end: int,
             encoding: str) -> types.Location:
    return types.Location(uri=uri, range=to_range(lines, start, end, encoding))


def hover(result: Any, lines: LineIndex, encoding: str, markdown: bool) -> types.Hover:
    return types.Hover(contents=markup(result.markdown, markdown),
                       range=to_range(lines, result.start, result.end, encoding))
