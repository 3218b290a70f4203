"""The only place that turns analysis results (offsets, dataclasses) into lsprotocol types.

Offsets are Python string indices; positions are (line, character) counted in
the encoding negotiated with the client (UTF-16 unless the client offered
UTF-8 or UTF-32 first).  Keeping this in one module means a wrong unit can only
be wrong here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lsprotocol import types

from hwf_lsp.jsontext.positions import LineIndex
from hwf_lsp.rules.vocabulary import EDITOR_RULES, RULES

SOURCE = "hwf"

RULES_DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
"""docs/rules.md, one anchor per rule code; linked from every diagnostic when it is there
(a source checkout or an editable install; a wheel has no docs/)."""
RULE_LINKS: dict[str, str] = (
    {code: f"{RULES_DOC.as_uri()}#{code}" for code in {**RULES, **EDITOR_RULES}}
    if RULES_DOC.is_file() else {})
"""Rule code -> the link of its diagnostics' codeDescription."""

_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
}
"""A Finding's severity (analysis.locate.Finding: 'error', 'warning', or 'information':
`analysis.findings.rules_waiting`)."""


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


def diagnostic(finding: Any, lines: LineIndex, encoding: str, uri: str = "") -> types.Diagnostic:
    """A check.Finding as a Diagnostic: code = the rule, source = "hwf", its related places
    (in `uri`), its tags and the link to its rule."""
    data = {key: value for key, value in (("node", finding.node), ("field", finding.field),
                                          ("index", finding.index)) if value is not None}
    link = RULE_LINKS.get(finding.rule)
    return types.Diagnostic(
        range=to_range(lines, finding.start, finding.end, encoding),
        message=finding.msg,
        severity=_SEVERITY.get(finding.severity, types.DiagnosticSeverity.Error),
        code=finding.rule,
        code_description=types.CodeDescription(href=link) if link else None,
        source=SOURCE,
        tags=[types.DiagnosticTag.Unnecessary] if finding.unnecessary else None,
        related_information=[
            types.DiagnosticRelatedInformation(
                location=location(uri, lines, r.start, r.end, encoding), message=r.msg)
            for r in finding.related] if finding.related and uri else None,
        data=data or None,
    )


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


def completion_list(items: Any, lines: LineIndex, encoding: str, markdown: bool,
                    insert_replace: bool = False) -> types.CompletionList:
    """analysis.completion_items' Completions as a CompletionList, each item with an edit:
    an InsertReplaceEdit for a client that has `insertReplaceSupport`, else a TextEdit whose
    range ends at the cursor (what Neovim and others apply, keeping the text after it)."""
    return types.CompletionList(
        is_incomplete=items.incomplete,
        items=[completion_item(item, lines, encoding, markdown, insert_replace)
               for item in items])


def completion_item(item: Any, lines: LineIndex, encoding: str, markdown: bool,
                    insert_replace: bool = False) -> types.CompletionItem:
    cursor = item.end if item.cursor is None else item.cursor
    edit: types.TextEdit | types.InsertReplaceEdit
    replace = to_range(lines, item.start, item.end, encoding)
    if insert_replace and replace.start.line == replace.end.line:  # the spec's condition
        edit = types.InsertReplaceEdit(
            new_text=item.insert_text, insert=to_range(lines, item.start, cursor, encoding),
            replace=replace)
    else:
        edit = text_edit(lines, item.start, cursor if not insert_replace else item.end,
                         item.insert_text, encoding)
    return types.CompletionItem(
        label=item.label,
        kind=_COMPLETION_KIND.get(item.kind, types.CompletionItemKind.Text),
        detail=item.detail,
        documentation=markup(item.documentation, markdown) if item.documentation else None,
        sort_text=item.sort_text, filter_text=item.filter_text,
        preselect=item.preselect or None,
        insert_text_format=types.InsertTextFormat.Snippet if item.snippet
        else types.InsertTextFormat.PlainText,
        text_edit=edit,
        additional_text_edits=[text_edit(lines, start, end, new, encoding)
                               for start, end, new in item.additional_edits] or None)


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
