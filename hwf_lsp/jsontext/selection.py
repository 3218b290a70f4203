"""Selection ranges: from the cursor outwards, each step a JSON value or member around it.

Innermost first: a string's text without its quotes, the string, its `"key": value`
member, the enclosing object or array, ... up to the root.  Each span contains the one
before it, as LSP requires; equal spans appear once.
"""

from __future__ import annotations

from .jsontree import JsonNode, ParsedDocument

__all__ = ["selection_spans"]


def selection_spans(doc: ParsedDocument, offset: int) -> list[tuple[int, int]]:
    """[start, end) spans around `offset`, innermost first (empty outside every value)."""
    spans: list[tuple[int, int]] = []
    chain = doc.path_to_offset(offset)
    for step in chain:
        if isinstance(step, JsonNode):
            spans.append((step.start, step.end))
        else:
            spans.append((step.key_start, step.end))
    last = chain[-1] if chain else None
    if isinstance(last, JsonNode):
        quoted = (last.start, last.end) if last.kind == "string" and last.closed else None
    else:
        quoted = (last.key_start, last.key_end) if last is not None else None
        if quoted is not None and doc.text[quoted[1] - 1:quoted[1]] != '"':
            quoted = None  # an unterminated key
    if quoted is not None and quoted[0] < offset < quoted[1]:
        spans.append(quoted)
        if quoted[1] - quoted[0] > 2:
            spans.append((quoted[0] + 1, quoted[1] - 1))
    out: list[tuple[int, int]] = []
    for span in reversed(spans):
        if out and span == out[-1]:
            continue
        if out and not (span[0] <= out[-1][0] and out[-1][1] <= span[1]):
            continue  # a recovered member that ends before its value: keep the nesting
        out.append(span)
    return out
