"""Quick fixes for findings: each a title and text edits (offsets), never a guess that breaks JSON.

| finding                         | fix                                              |
| unknown kind                    | the nearest kind                                 |
| after names an unknown id       | the nearest id, or remove the entry              |
| after names itself or a note    | remove the entry                                 |
| retries / timeout out of range  | clamp into the allowed range                     |
| bad on_timeout/deliver/color    | the nearest allowed value                        |
| missing required payload        | insert the field with a placeholder              |
| no trigger                      | insert a trigger node                            |
| condition reads a non-upstream  | add that node to the condition's `after`         |
| unknown field with a suggestion | rename the key                                   |
| JSON: a missing comma           | insert it after the previous value               |
| JSON: a trailing comma          | remove it                                        |
"""

from __future__ import annotations

import difflib
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from ..workflow.vocabulary import (
    DELIVER_VALUES,
    KINDS,
    NOTE,
    NOTE_COLORS,
    ON_TIMEOUT_VALUES,
    TRIGGER,
    field_named,
    required_payloads,
)
from .design import Design, NodeInfo, design_of
from .jsontree import JsonNode, ParsedDocument
from .locate import Finding
from .suggestions import nearest_parent

Edit = tuple[int, int, str]
_SUGGESTION = re.compile(r"did you mean '([^']+)'")
_ENUMS = {"on_timeout": ON_TIMEOUT_VALUES, "deliver": DELIVER_VALUES, "color": NOTE_COLORS}


@dataclass(slots=True)
class Fix:
    title: str
    finding: Finding
    edits: list[Edit] = field(default_factory=list)
    preferred: bool = False


def fixes_for(doc: ParsedDocument, findings: list[Finding]) -> list[Fix]:
    """Every fix for the given findings (usually those under the cursor)."""
    design = design_of(doc)
    out: list[Fix] = []
    for finding in findings:
        try:
            out.extend(_fixes(doc, design, finding))
        except Exception:  # noqa: BLE001 - no fix beats a crash
            continue
    return out


def _nearest(word: str, choices: list[str] | tuple[str, ...]) -> str | None:
    choices = [c for c in choices if c]
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.0)
    return close[0] if close else None


def _info(design: Design, finding: Finding) -> NodeInfo | None:
    if finding.index is None or not 0 <= finding.index < len(design.infos):
        return None
    return design.infos[finding.index]


def _fixes(doc: ParsedDocument, design: Design, finding: Finding) -> list[Fix]:
    rule = finding.rule
    text = doc.text
    raw = text[finding.start:finding.end]
    info = _info(design, finding)
    if rule == "known-kind" and raw.startswith('"'):
        current = _string(raw)
        best = _nearest(current or "", KINDS) if current is not None else None
        if best:
            return [Fix(f"Change type to '{best}'", finding,
                        [(finding.start, finding.end, json.dumps(best))], preferred=True)]
    if rule == "edges" and info is not None:
        return _edge_fixes(design, info, finding, raw)
    if rule in ("retries", "deadline", "delivery", "note-color") and finding.field:
        return _value_fixes(info, finding, raw)
    if rule == "required-payload" and info is not None and info.obj is not None:
        return _payload_fixes(info, finding)
    if rule == "one-trigger" and "none" in finding.msg:
        return _trigger_fix(doc, design, finding)
    if rule == "not-upstream" and info is not None and info.obj is not None:
        target = raw
        return [Fix(f"Add '{target}' to after", finding, _add_to_after(info, target),
                    preferred=True)]
    if rule == "json-syntax":
        return _syntax_fixes(text, finding)
    if rule == "unknown-field":
        match = _SUGGESTION.search(finding.msg)
        taken = info is not None and match is not None and info.member(match.group(1))
        if match and raw.startswith('"') and not taken:
            return [Fix(f"Rename to '{match.group(1)}'", finding,
                        [(finding.start, finding.end, json.dumps(match.group(1)))],
                        preferred=True)]
    return []


def _syntax_fixes(text: str, finding: Finding) -> list[Fix]:
    if finding.msg.startswith("Expected ','"):
        index = finding.start - 1
        while index >= 0 and text[index] in " \t\r\n":
            index -= 1
        if index < 0 or text[index] in "[{,:":
            return []
        return [Fix("Insert the missing ','", finding, [(index + 1, index + 1, ",")],
                    preferred=True)]
    if finding.msg == "Trailing comma" and text[finding.start:finding.end] == "," and \
            text[finding.end:].lstrip(" \t\r\n")[:1] in ("]", "}"):
        return [Fix("Remove the trailing ','", finding, [(finding.start, finding.end, "")],
                    preferred=True)]
    return []


def _string(raw: str) -> str | None:
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def _after_items(info: NodeInfo) -> list[JsonNode]:
    member = info.member("after")
    if member is None or member.value is None or member.value.items is None:
        return []
    return member.value.items


def _remove_item(items: list[JsonNode], index: int) -> Edit:
    item = items[index]
    if index + 1 < len(items):
        return item.start, items[index + 1].start, ""
    if index > 0:
        return items[index - 1].end, item.end, ""
    return item.start, item.end, ""


def _edge_fixes(design: Design, info: NodeInfo, finding: Finding, raw: str) -> list[Fix]:
    items = _after_items(info)
    index = next((i for i, item in enumerate(items) if item.start == finding.start), None)
    if index is None:
        return []
    entry = _string(raw)
    shown = entry if entry is not None else raw
    removal = Fix(f"Remove '{shown}' from after", finding, [_remove_item(items, index)])
    if entry is None or entry == info.id or design.kind_of(entry) == NOTE or \
            entry in design.by_id:
        removal.preferred = True
        return [removal]
    listed = [item.value for item in items]
    best = nearest_parent(entry, info.id, [(i.id, i.kind) for i in design.infos], listed)
    fixes = []
    if best:  # the id the finding's "did you mean" names (analysis/suggestions.py)
        fixes.append(Fix(f"Change to '{best}'", finding,
                         [(finding.start, finding.end, json.dumps(best))], preferred=True))
    fixes.append(removal)
    return fixes


def _value_fixes(info: NodeInfo | None, finding: Finding, raw: str) -> list[Fix]:
    name = finding.field
    if name in _ENUMS:
        current = _string(raw)
        best = _nearest(current if current is not None else raw, _ENUMS[name])
        if best is None:
            return []
        return [Fix(f"Change {name} to '{best}'", finding,
                    [(finding.start, finding.end, json.dumps(best))], preferred=True)]
    kind = info.kind if info is not None else None
    spec = field_named(kind, name) if kind else None
    if spec is None or spec.minimum is None or spec.maximum is None:
        return []
    try:
        value: Any = json.loads(raw)
    except ValueError:
        return []
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return []
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        return []
    clamped = int(min(max(math.floor(value) if math.isfinite(value) else
                          (spec.maximum if value > 0 else spec.minimum),
                          spec.minimum), spec.maximum))
    return [Fix(f"Set {name} to {clamped} (allowed {spec.minimum}–{spec.maximum})", finding,
                [(finding.start, finding.end, str(clamped))], preferred=True)]


def _insert_member(obj: JsonNode, text: str) -> Edit:
    """Insert `"key": value` as the last member of `obj`."""
    members = obj.members or []
    if members:
        end = members[-1].end
        return end, end, ", " + text
    return obj.start + 1, obj.start + 1, text


def _payload_fixes(info: NodeInfo, finding: Finding) -> list[Fix]:
    fixes = []
    for spec in required_payloads(info.kind or ""):
        if spec.name in info.data and isinstance(info.data[spec.name], str) and \
                info.data[spec.name].strip():
            continue
        member = info.member(spec.name)
        example = json.dumps(spec.example if spec.example is not None else "")
        if member is not None and member.value is not None:
            edit = (member.value.start, member.value.end, example)
        else:
            edit = _insert_member(info.obj, f'"{spec.name}": {example}')
        fixes.append(Fix(f"Add {spec.name}", finding, [edit], preferred=True))
    return fixes


def _trigger_fix(doc: ParsedDocument, design: Design, finding: Finding) -> list[Fix]:
    root = doc.root
    nodes = None
    for member in reversed(root.members or []) if root is not None else ():
        if member.key == "nodes":
            nodes = member.value
            break
    if nodes is None or nodes.kind != "array":
        return []
    ident = TRIGGER
    n = 1
    while ident in design.by_id:
        ident = f"{TRIGGER}{n}"
        n += 1
    node = json.dumps({"id": ident, "type": TRIGGER})
    if nodes.items:
        first = nodes.items[0]
        edit = (first.start, first.start, node + ", ")
    else:
        edit = (nodes.start + 1, nodes.start + 1, node)
    return [Fix("Add a trigger node", finding, [edit], preferred=True)]


def _add_to_after(info: NodeInfo, target: str) -> list[Edit]:
    member = info.member("after")
    quoted = json.dumps(target)
    if member is not None and member.value is not None and member.value.kind == "array":
        array = member.value
        if array.items:
            end = array.items[-1].end
            return [(end, end, ", " + quoted)]
        return [(array.start + 1, array.start + 1, quoted)]
    if member is not None and member.value is not None:
        return [(member.value.start, member.value.end, f"[{quoted}]")]
    return [_insert_member(info.obj, f'"after": [{quoted}]')]
