"""Edits that provably cannot change the findings: a keystroke inside a prompt.

Most keystrokes land inside a node's free-text string (vocabulary.FREE_TEXT_FIELDS:
prompt, question, title, text, profile, model).  The rulebook checks such a value only
for being a string (prompt and question: a non-blank one), no message quotes it, and no
other rule or warning reads it.  So when the edited value was and stays a non-blank JSON
string, and no finding's range touches it, the findings of the new text are the old
ones with every offset after the edit shifted by the edit's length change -- no parse,
no rulebook, no lint.  Anything else returns None: the caller runs the full check.

Pure: offsets are code points of the texts, no protocol types.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from ..workflow.vocabulary import FREE_TEXT_FIELDS
from .jsontree import JsonNode, Member, ParsedDocument
from .locate import Finding

__all__ = ["ShiftedFindings", "free_text_token", "shift_within_token", "shifted_findings"]

@dataclass(frozen=True, slots=True)
class ShiftedFindings:
    """The findings of the edited text, and where the edited value now sits in it."""

    findings: list[Finding]
    token: tuple[int, int]
    """[start, end) of the edited string token (quotes included) in the NEW text: still a
    free-text value, so the next keystroke inside it needs no tree (see shift_within_token)."""


def free_text_token(doc: ParsedDocument, start: int, end: int) -> tuple[int, int] | None:
    """[start, end) of the string token whose quotes strictly enclose [start, end), when
    it is the value of a free-text field of an element of the root's `nodes`; else None.

    Only for a document without syntax errors (a recovered tree may be misleading)."""
    if doc.errors or start > end:
        return None
    chain = doc.path_to_offset(start)
    if len(chain) != 6:
        return None
    root, nodes_member, nodes, obj, member, value = chain
    if not (
        isinstance(root, JsonNode) and root.kind == "object" and root is doc.root
        and isinstance(nodes_member, Member) and nodes_member.key == "nodes"
        and isinstance(nodes, JsonNode) and nodes.kind == "array"
        and isinstance(obj, JsonNode) and obj.kind == "object"
        and isinstance(member, Member) and member.key in FREE_TEXT_FIELDS
        and isinstance(value, JsonNode) and value is member.value
        and value.kind == "string" and value.closed
    ):
        return None
    if not value.start < start <= end < value.end:
        return None
    return value.start, value.end


def _non_blank_string(token: str) -> bool:
    """Whether `token` (starting and ending with a quote) is one strict JSON string, as the
    parser's json.loads accepts it inside the document, holding a non-blank text.  A text
    that starts and ends with a quote and decodes is exactly one string token (anything
    after a closing quote would be extra data), and json.loads scans it in C."""
    try:
        value = json.loads(token)
    except ValueError:
        return False
    return isinstance(value, str) and bool(value.strip())  # as the rulebook reads "blank"


def shift_within_token(text: str, findings: list[Finding], token: tuple[int, int],
                       start: int, end: int, replacement: str) -> ShiftedFindings | None:
    """The findings after replacing text[start:end] with `replacement`, or None.

    `token` must be a free-text value's string token in `text` (free_text_token), `text`
    free of syntax errors, and `findings` exactly check_text(text)'s findings."""
    token_start, token_end = token
    if not token_start < start <= end < token_end:  # strictly inside the quotes
        return None
    old = text[token_start:token_end]
    new = old[: start - token_start] + replacement + old[end - token_start:]
    if not (_non_blank_string(old) and _non_blank_string(new)):
        return None
    for finding in findings:
        if finding.start <= token_end and finding.end >= token_start:
            return None  # a finding at or inside the value: its range could depend on it
    delta = len(replacement) - (end - start)
    shifted = [
        replace(f, start=f.start + delta, end=f.end + delta) if f.start > token_end else f
        for f in findings
    ] if delta else list(findings)
    return ShiftedFindings(shifted, (token_start, token_end + delta))


def shifted_findings(prev_doc: ParsedDocument, prev_findings: list[Finding], start: int,
                     end: int, replacement: str) -> list[Finding] | None:
    """check_text(new_text)'s findings without checking, or None when the edit
    prev_doc.text[start:end] -> `replacement` could change them (then check in full).

    `prev_findings` must be exactly check_text(prev_doc.text)'s findings."""
    token = free_text_token(prev_doc, start, end)
    if token is None:
        return None
    result = shift_within_token(prev_doc.text, prev_findings, token, start, end, replacement)
    return result.findings if result is not None else None
