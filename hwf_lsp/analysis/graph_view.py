"""The design as the canvas draws it: nodes, `after` edges and the findings on each.

One pure function over a parsed document and the findings the check pipeline already
produced for it (`check.check_document`, the diagnostics' own list): the canvas shows
the editor's verdict, never a second one.  The language server's `hwf.graph` and the
Hermes dashboard's graph route both answer `graph_answer` (docs/commands.md, "Canvas").

Which node a finding belongs to: the node it names by index, else the node whose
object holds it; on that node, an `after` entry drawn as an edge takes the findings
inside it.  Everything else (no trigger, broken JSON, a node that cannot be drawn) is
the graph's own.  Nodes without a usable id are not drawn (the rulebook reports them on
the graph); a later node repeating an id is drawn, with its identity defect, and the
canvas keys it apart (`graphModel.ts` `flowIds`: `a#3` beside a real `a#2`); edges join
the first node of an id.

Text shown on the canvas is capped (`SHOWN_CHARS` per field, then a marker): a design
may hold a 50 MB prompt, and the webview and the dashboard get the graph on every edit.
An id longer than the cap cannot be shown whole, so its node is not drawn either.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..jsontext.jsontree import JsonNode, ParsedDocument
from ..jsontext.positions import LineIndex
from ..rules.vocabulary import COMMON_FIELDS, KIND_FIELDS, MAIN_FIELD, Field
from .design import Design, NodeInfo, design_of
from .locate import Finding

__all__ = ["SHOWN_CHARS", "RangeOf", "graph_answer", "graph_view", "lsp_ranges", "shown"]

RangeOf = Callable[[int, int], dict[str, Any]]
"""[start, end) offsets -> an LSP range as a JSON object."""

SHOWN_CHARS = 2000
"""The most characters of one field (name, title, id, main value, message) the canvas gets."""

SEVERITY = {"error": 1, "warning": 2, "information": 3, "info": 3, "hint": 4}
"""LSP DiagnosticSeverity numbers, as the diagnostics carry them."""


def lsp_ranges(lines: LineIndex, encoding: str) -> RangeOf:
    """Offsets to `{"start": {line, character}, "end": ...}` in `encoding`'s units."""

    def range_of(start: int, end: int) -> dict[str, Any]:
        start_line, start_char = lines.position(start, encoding)
        end_line, end_char = lines.position(max(start, end), encoding)
        return {"start": {"line": start_line, "character": start_char},
                "end": {"line": end_line, "character": end_char}}

    return range_of


def shown(value: Any) -> Any:
    """`value` as the canvas may show it: a string over `SHOWN_CHARS` cut with a marker
    saying how long it was; a list or object of JSON over the cap, as its cut JSON text."""
    if isinstance(value, str):
        if len(value) <= SHOWN_CHARS:
            return value
        return f"{value[:SHOWN_CHARS]}… [{len(value):,} characters, cut for the canvas]"
    if isinstance(value, (list, dict)):
        try:
            text = json.dumps(value, ensure_ascii=False)
        except (ValueError, RecursionError):  # nested too deep to write out
            return "[a value too deeply nested to show]"
        return value if len(text) <= SHOWN_CHARS else shown(text)
    return value


def _defect(finding: Finding, range_of: RangeOf) -> dict[str, Any]:
    return {"message": shown(finding.msg), "severity": SEVERITY.get(finding.severity, 1),
            "code": finding.rule, "range": range_of(finding.start, finding.end)}


def _last_member_value(info: NodeInfo, key: str) -> JsonNode | None:
    member = info.member(key)
    return member.value if member is not None else None


def _main(info: NodeInfo) -> dict[str, Any] | None:
    field = MAIN_FIELD.get(info.kind or "")
    if field is None:
        return None
    value = info.data.get(field)
    cut = shown(value)
    if cut is value:
        return {"field": field, "value": value}
    return {"field": field, "value": cut, "cut": True}  # the canvas must not save it back


def _fields(info: NodeInfo) -> list[dict[str, Any]]:
    """`title` and the kind's own fields, typed, each with the node's value when it has
    one: what the canvas's inspector edits (`id` by rename, `after` by edges)."""
    title = [f for f in COMMON_FIELDS if f.name == "title"]
    return [_field(f, info) for f in (*title, *KIND_FIELDS.get(info.kind or "", ()))]


def _field(field: Field, info: NodeInfo) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": field.name, "type": field.type}
    if field.enum:
        entry["enum"] = list(field.enum)
    if field.minimum is not None:
        entry["minimum"] = field.minimum
    if field.maximum is not None:
        entry["maximum"] = field.maximum
    if field.required:
        entry["required"] = True
    if field.default is not None:
        entry["default"] = field.default
    if field.name in info.data:
        value = info.data[field.name]
        cut = shown(value)
        entry["value"] = cut
        if cut is not value:
            entry["cut"] = True  # the inspector must not save it back
    return entry


class _Drawn:
    """The drawn nodes and edges with their spans, while findings are handed out."""

    def __init__(self, design: Design, range_of: RangeOf) -> None:
        self.nodes: list[dict[str, Any]] = []
        self.spans: list[tuple[int, int, int]] = []
        """(start, end, index in `nodes`) of each drawn node's object."""
        self.by_index: dict[int, dict[str, Any]] = {}
        self.edges: list[dict[str, Any]] = []
        self.edge_spans: dict[int, list[tuple[int, int, dict[str, Any]]]] = {}
        plan = {step: number for number, step in enumerate(design.plan_order(), 1)}
        drawn: dict[str, NodeInfo] = {}
        """The first node of each id: what `after` entries name and edges join."""
        for info in design.infos:
            if info.obj is None or info.id is None or len(info.id) > SHOWN_CHARS:
                continue
            drawn.setdefault(info.id, info)  # a repeat is drawn too, carrying its defect
            id_value = _last_member_value(info, "id")
            node = {"id": info.id, "kind": shown(info.kind), "title": shown(info.title),
                    "plan_index": plan.get(info.id), "main": _main(info),
                    "fields": _fields(info),
                    "range": range_of(info.obj.start, info.obj.end),
                    "id_range": range_of(id_value.start, id_value.end),
                    "defects": []}
            self.nodes.append(node)
            self.spans.append((info.obj.start, info.obj.end, info.index))
            self.by_index[info.index] = node
        for info in drawn.values():
            self._edges_into(info, drawn, range_of)

    def _edges_into(self, info: NodeInfo, drawn: dict[str, NodeInfo],
                    range_of: RangeOf) -> None:
        after = _last_member_value(info, "after")
        if after is None or not after.items:
            return
        seen: set[str] = set()
        spans = self.edge_spans.setdefault(info.index, [])
        for item in after.items:
            parent = item.value if item.kind == "string" else None
            if not isinstance(parent, str) or parent not in drawn or parent in seen:
                continue
            seen.add(parent)
            edge = {"from": parent, "to": info.id, "range": range_of(item.start, item.end),
                    "defects": []}
            self.edges.append(edge)
            spans.append((item.start, item.end, edge))

    def owner(self, finding: Finding) -> dict[str, Any] | None:
        """The node or edge a finding shows on; None: the graph's own."""
        index = finding.index if finding.index in self.by_index else next(
            (i for start, end, i in self.spans if start <= finding.start < end), None)
        if index is None:
            return None
        for start, end, edge in self.edge_spans.get(index, ()):
            if start <= finding.start and finding.end <= end:
                return edge
        return self.by_index[index]


def graph_view(doc: ParsedDocument, findings: list[Finding],
               range_of: RangeOf, design: Design | None = None) -> dict[str, Any]:
    """`{name, nodes, edges, defects}` of the contract for `doc` (see the module doc)."""
    design = design or design_of(doc)
    drawn = _Drawn(design, range_of)
    graph_defects: list[dict[str, Any]] = []
    for finding in findings:
        owner = drawn.owner(finding)
        (owner["defects"] if owner is not None else graph_defects).append(
            _defect(finding, range_of))
    return {"name": shown(design.name), "nodes": drawn.nodes, "edges": drawn.edges,
            "defects": graph_defects}


def graph_answer(uri: str, version: int | None, doc: ParsedDocument, findings: list[Finding],
                 range_of: RangeOf, last_good: dict[str, Any] | None = None
                 ) -> dict[str, Any]:
    """The `hwf.graph` answer: the graph of `doc`, or, when its text is not valid JSON
    (its nodes cannot be read), `last_good` (an earlier answer for this uri) marked
    stale, with the current syntax errors as its graph defects."""
    if not doc.errors:
        return {"uri": uri, "version": version, "stale": False,
                **graph_view(doc, findings, range_of)}
    base = last_good or {"name": None, "nodes": [], "edges": []}
    syntax = [_defect(f, range_of) for f in findings if f.rule == "json-syntax"]
    return {"uri": uri, "version": version, "stale": True, "name": base.get("name"),
            "nodes": base.get("nodes", []), "edges": base.get("edges", []),
            "defects": syntax}
