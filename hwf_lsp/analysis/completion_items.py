"""Completion: kinds, fields, enums, node ids, condition parts, new-node snippets.

Works on whatever the person has typed so far: the cursor context comes from
`context.cursor_context`, which tolerates unterminated strings, missing commas
and anything after the cursor.  Items carry the offsets they replace; the
server turns them into text edits.  Snippet syntax (`${1:x}`) is used only when
the client supports it (`snippets=True`); otherwise the same text is plain.
"""

from __future__ import annotations

import heapq
import json
import re
from bisect import bisect_left
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..jsontext.jsontree import JsonNode, ParsedDocument
from ..workflow.conditions import resolve_path
from ..workflow.graph import ancestors
from ..workflow.vocabulary import (
    AGENT,
    KIND_DOCS,
    KINDS,
    NOTE,
    RULES,
    TRIGGER,
    Field,
    field_named,
    fields_for,
)
from .context import ITEM, KEY, VALUE, CursorContext, cursor_context
from .design import Candidate, Design, NodeInfo, design_of, has_output
from .run_info import RunInfo

KIND_ITEM, FIELD, ENUM, NODE, PATH, OPERATOR, LITERAL, SNIPPET, PROPERTY = (
    "kind", "field", "enum", "node", "path", "operator", "literal", "snippet", "property")

MAX_PATH_ITEMS = 200
_WORD_TAIL = re.compile(r"[A-Za-z0-9_.\-]*")
_NAME = r"[A-Za-z0-9_-]+"
_EXPR_START = re.compile(r"\s*(o|ou|out)?\Z")
_EXPR_NODE = re.compile(r"\s*out\.(" + _NAME + r")?\Z")
_EXPR_PATH = re.compile(r"\s*out\.(" + _NAME + r")((?:\." + _NAME + r")*)\.(" + _NAME + r")?\Z")
_EXPR_OPERATOR = re.compile(r"\s*out\.(" + _NAME + r")((?:\." + _NAME + r")+)\s+([=!<>]*)\Z")
_EXPR_LITERAL = re.compile(r"\s*out\.(" + _NAME + r")((?:\." + _NAME + r")+)\s*"
                           r"(==|!=|<=|>=|<|>)\s*(\S*)\Z")


@dataclass(slots=True)
class Completion:
    label: str
    kind: str
    insert_text: str
    start: int
    end: int
    """[start, end) is replaced by insert_text."""
    detail: str | None = None
    documentation: str | None = None
    """Markdown."""
    snippet: bool = False
    sort_text: str | None = None
    filter_text: str | None = None
    preselect: bool = False
    additional_edits: tuple[tuple[int, int, str], ...] = ()
    """Edits elsewhere that accepting it makes too ([start, end) -> text): a separator
    that belongs after the previous member or item."""


class Completions(list):
    """The items offered at a spot, and whether more exist than are listed."""

    def __init__(self, items: Iterable[Completion] = (), incomplete: bool = False) -> None:
        super().__init__(items)
        self.incomplete = incomplete
        """Some were left out (MAX_NODE_ITEMS): the client asks again as the user types."""


def complete(doc: ParsedDocument, offset: int, *, run: RunInfo | None = None,
             snippets: bool = True) -> Completions:
    """Completions at `offset`; none when nothing fits.  Never raises on any document."""
    ctx = cursor_context(doc, offset)
    items = _separated(ctx, _items(ctx, design_of(doc), run, snippets))
    return items if isinstance(items, Completions) else Completions(items)


def _items(ctx: CursorContext, design: Design, run: RunInfo | None,
           snippets: bool) -> list[Completion]:
    following = _value_after(ctx)
    if following is not None and following.kind in ("object", "array"):
        return []  # a list or object is there already: never replaced by a keystroke
    if ctx.role == VALUE and ctx.in_design_node:
        return _values(ctx, design, run, snippets)
    if ctx.role == KEY and ctx.in_design_node:
        return _fields(ctx, design, snippets)
    if ctx.role == KEY and ctx.path == ():
        return _top_keys(ctx, design, snippets)
    if ctx.in_after:
        return _after_ids(ctx, design)
    if ctx.in_nodes_array and not ctx.in_string:
        return _new_nodes(ctx, design, snippets)
    if ctx.role == VALUE and ctx.path == () and ctx.key == "nodes" and not ctx.in_string:
        return [_with_range(ctx, c) for c in _new_node_items(design, snippets, wrap=True)]
    return []


# --- separators ----------------------------------------------------------------


def _separated(ctx: CursorContext, items: list[Completion]) -> list[Completion]:
    """Accepting an item keeps valid JSON valid: a ',' before what follows it (in its
    text) and, for a new member or item, after what precedes it (an additional edit
    where that separator belongs).  A value after its key's ':' needs only the first; a
    key whose ':' is there already, or text inside a condition string, needs none."""
    if not items or ctx.role not in (KEY, VALUE, ITEM) or (ctx.role == KEY and ctx.has_colon) \
            or (ctx.role == VALUE and ctx.key == "expression" and ctx.in_string):
        return items
    text = ctx.source
    for item in items:
        if _significant_after(text, item.end) not in _ENDS_A_VALUE:
            item.insert_text += ","
        if ctx.role == VALUE:
            continue
        before = _significant_before(text, item.start)
        if before < 0 or text[before] in "{[,:":
            continue
        if before + 1 == item.start:  # right after it: the separator leads the text
            item.insert_text = ", " + item.insert_text
        else:
            item.additional_edits = ((before + 1, before + 1, ","),)
    return items


_ENDS_A_VALUE = ("", "}", "]", ",")
"""What may follow a value without a ',' in between ("" is the end of the text)."""


def _significant_after(text: str, offset: int) -> str:
    """The first character at or after `offset` that is not whitespace ("" at the end)."""
    end = len(text)
    while offset < end and text[offset] in " \t\r\n":
        offset += 1
    return text[offset:offset + 1]


def _significant_before(text: str, offset: int) -> int:
    """The offset of the last character before `offset` that is not whitespace (-1: none)."""
    index = offset - 1
    while index >= 0 and text[index] in " \t\r\n":
        index -= 1
    return index


# --- replace ranges ------------------------------------------------------------


def _value_range(ctx: CursorContext) -> tuple[int, int]:
    """What a JSON value completion replaces: the string (with quotes) or the bare word.

    A closed string is replaced whole only when the part after the cursor is one word;
    otherwise the parser may have closed it on a later quote, and only what precedes
    the cursor is ours to replace.
    """
    if ctx.in_string:
        end = ctx.token_end
        inner_end = end - 1 if ctx.string_closed else end
        tail = ctx.offset if inner_end < ctx.offset else inner_end
        suffix = _text_between(ctx, ctx.offset, tail)
        if _WORD_TAIL.fullmatch(suffix):
            return ctx.token_start, end if ctx.string_closed else tail
        return ctx.token_start, ctx.offset
    following = _value_after(ctx)
    if following is not None:  # `"key": |value`: the value is what a completion replaces
        return ctx.token_start, following.end
    return ctx.token_start, max(ctx.token_end, ctx.offset)


def _value_after(ctx: CursorContext) -> JsonNode | None:
    """The member's value when the cursor is between its ':' and that value."""
    member = ctx.member
    if ctx.role != VALUE or ctx.in_string or member is None or member.value is None:
        return None
    value = member.value
    if value.start < ctx.offset or ctx.source[ctx.offset:value.start].strip():
        return None
    return value


def _text_between(ctx: CursorContext, start: int, end: int) -> str:
    return ctx.source[start:end]


def _with_range(ctx: CursorContext, item: Completion) -> Completion:
    item.start, item.end = _value_range(ctx)
    return item


def _quoted_item(ctx: CursorContext, label: str, kind: str, *, detail: str | None = None,
                 documentation: str | None = None, sort: str | None = None) -> Completion:
    start, end = _value_range(ctx)
    text = json.dumps(label, ensure_ascii=False)
    return Completion(label=label, kind=kind, insert_text=text, start=start, end=end,
                      detail=detail, documentation=documentation, sort_text=sort,
                      filter_text=text if ctx.in_string else label)


# --- values ------------------------------------------------------------------------


def _values(ctx: CursorContext, design: Design, run: RunInfo | None,
            snippets: bool) -> list[Completion]:
    info = design.info_at(ctx.node_index)
    key = ctx.key
    if key == "type":
        return [
            _quoted_item(ctx, kind, KIND_ITEM, detail="node kind", documentation=KIND_DOCS[kind],
                         sort=f"{i:02d}")
            for i, kind in enumerate(KINDS)
        ]
    if key == "expression" and ctx.in_string and info is not None:
        return _expression(ctx, design, info, run)
    if key == "after" and not ctx.in_string and info is not None:
        start, end = _value_range(ctx)
        candidates, incomplete = _nearest(_after_candidates(design, info.id, ()), ctx)
        return Completions([
            Completion(label=f'["{c.id}"]', kind=NODE, insert_text=json.dumps([c.id]),
                       start=start, end=end, detail=_node_detail(c), sort_text=f"{i:05d}")
            for i, c in enumerate(design.info_at(index) for index, _, _ in candidates)
        ], incomplete)
    kind = info.kind if info is not None else None
    field = field_named(kind, key) if kind in KINDS and key else None
    if field is None and key:
        field = next((f for k in KINDS for f in fields_for(k) if f.name == key), None)
    if field is None:
        return []
    if field.enum:
        return [
            _quoted_item(ctx, value, ENUM, detail=f"{field.name}", documentation=field.doc,
                         sort=f"{i:02d}")
            for i, value in enumerate(field.enum)
        ]
    if field.type == "integer" and not ctx.in_string and field.maximum is not None:
        start, end = _value_range(ctx)
        values = range(field.minimum, field.maximum + 1) if field.maximum - field.minimum <= 5 \
            else sorted({field.minimum, 60, 1440, field.maximum})
        return [Completion(label=str(v), kind=LITERAL, insert_text=str(v), start=start, end=end,
                           detail=field.name, documentation=field.doc, sort_text=f"{i:02d}")
                for i, v in enumerate(values)]
    return []


# --- keys --------------------------------------------------------------------------


def _key_range(ctx: CursorContext) -> tuple[int, int]:
    if ctx.in_string or ctx.member is not None and ctx.role == KEY and ctx.key is not None:
        return _value_range(ctx)
    return ctx.token_start, max(ctx.token_end, ctx.offset)


def _field_text(field: Field, snippets: bool, with_value: bool) -> str:
    name = json.dumps(field.name)
    if not with_value:
        return name
    example = field.example
    if field.type == "enum":
        choices = field.enum
        if snippets:
            escaped = ",".join(c.replace(",", "\\,").replace("|", "\\|") for c in choices)
            return f'{name}: "${{1|{escaped}|}}"'
        return f"{name}: {json.dumps(field.default if field.default is not None else choices[0])}"
    if field.type == "integer":
        value = field.default if field.default is not None else example
        return f"{name}: ${{1:{value}}}" if snippets else f"{name}: {value}"
    if field.type in ("id-list", "string-list"):
        if field.type == "string-list" and example:
            if snippets:
                inner = ", ".join(f'"${{{i + 1}:{v}}}"' for i, v in enumerate(example))
                return f"{name}: [{inner}]"
            return f"{name}: {json.dumps(example)}"
        return f"{name}: [$1]" if snippets else f"{name}: []"
    text = str(example) if example is not None else ""
    placeholder = _snippet_escape(json.dumps(text)[1:-1])
    return f'{name}: "${{1:{placeholder}}}"' if snippets else f"{name}: {json.dumps(text)}"


def _snippet_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("$", "\\$").replace("}", "\\}")


def _fields(ctx: CursorContext, design: Design, snippets: bool) -> list[Completion]:
    info = design.info_at(ctx.node_index)
    kind = info.kind if info is not None else None
    present = {m.key for m in (ctx.container.members or ()) if m is not ctx.member}
    if kind in KINDS:
        candidates = list(fields_for(kind))
    else:  # no kind yet: every field of every kind, common ones first
        seen: dict[str, Field] = {}
        for k in KINDS:
            for f in fields_for(k):
                seen.setdefault(f.name, f)
        candidates = list(seen.values())
    start, end = _key_range(ctx)
    with_value = not ctx.has_colon
    items = []
    for order, field in enumerate(candidates):
        if field.name in present:
            continue
        rank = 0 if field.required else 1
        doc = field.doc
        if field.required:
            doc += "\n\nRequired."
        items.append(Completion(
            label=field.name, kind=FIELD, insert_text=_field_text(field, snippets, with_value),
            start=start, end=end, detail=f"{kind or 'any'} field" + (" (required)"
                                                                     if field.required else ""),
            documentation=doc, snippet=snippets and with_value,
            sort_text=f"{rank}{order:02d}",
            filter_text=json.dumps(field.name) if ctx.in_string else field.name,
        ))
    return items


def _top_keys(ctx: CursorContext, design: Design, snippets: bool) -> list[Completion]:
    present = {m.key for m in (ctx.container.members or ()) if m is not ctx.member}
    start, end = _key_range(ctx)
    out = []
    with_value = not ctx.has_colon
    if "name" not in present:
        text = ('"name": "${1:my-design}"' if snippets else '"name": "my-design"') \
            if with_value else '"name"'
        out.append(Completion("name", PROPERTY, text, start, end, detail="design name",
                              documentation="The design's name: `^[a-z0-9][a-z0-9_.-]{0,63}$`. "
                              "Runs of this design are found by it.",
                              snippet=snippets and with_value,
                              filter_text='"name"' if ctx.in_string else "name"))
    if "nodes" not in present:
        text = ('"nodes": [\n\t{"id": "${1:trigger}", "type": "trigger"}$0\n]' if snippets
                else '"nodes": [{"id": "trigger", "type": "trigger"}]') if with_value \
            else '"nodes"'
        out.append(Completion("nodes", PROPERTY, text, start, end, detail="the design's nodes",
                              documentation=RULES["graph-shape"],
                              snippet=snippets and with_value,
                              filter_text='"nodes"' if ctx.in_string else "nodes"))
    return out


# --- after ------------------------------------------------------------------------


def _node_detail(info: NodeInfo) -> str:
    return f"{info.kind or '?'}" + (f" — {info.title}" if info.title else "")


def _after_candidates(design: Design, self_id: str | None,
                      listed: tuple[str, ...]) -> list[Candidate]:
    """Ids that may be added to the after of node `self_id` (`Design.after_targets`): not
    itself, no cycle, not listed.

    A parent closes a cycle exactly when it runs after `self_id` already: its descendants
    are found once (one pass over the edges), not once per candidate."""
    excluded = set(listed)
    if self_id is not None:
        excluded.add(self_id)
        excluded.update(design.descendants_of(self_id))
    return [c for c in design.after_targets if c[1] not in excluded]


def _after_ids(ctx: CursorContext, design: Design) -> list[Completion]:
    info = design.info_at(ctx.node_index)
    array = ctx.container
    listed = []
    for item in array.items or ():
        if item.kind == "string" and isinstance(item.value, str) and item is not ctx.string_node:
            listed.append(item.value)
    candidates, incomplete = _nearest(
        _after_candidates(design, info.id if info is not None else None, tuple(listed)), ctx)
    chosen = [design.info_at(index) for index, _, _ in candidates]
    return Completions([
        _quoted_item(ctx, c.id, NODE, detail=_node_detail(c), documentation=c.first_line(),
                     sort=f"{'0' if c.kind == TRIGGER else '1'}{c.index:05d}")
        for c in chosen
    ], incomplete)


MAX_NODE_ITEMS = 100
"""At most this many node ids in one list.  Past it the list is incomplete: the client
asks again as the user types, and the ids that match what is typed come first."""


def _nearest(candidates: list[Candidate], ctx: CursorContext) -> tuple[list[Candidate], bool]:
    """At most MAX_NODE_ITEMS of `candidates` (in node order), and whether some were left
    out: those whose id holds the typed text, then the trigger, then the nodes nearest the
    cursor's (the ones just before it first: a node usually runs after those)."""
    if len(candidates) <= MAX_NODE_ITEMS:
        return candidates, False
    typed = ctx.prefix.lower()
    here = ctx.node_index if ctx.node_index is not None else len(candidates)
    if typed:
        chosen = heapq.nsmallest(MAX_NODE_ITEMS, candidates, key=_rank(typed, here))
    else:
        chosen = _nearest_untyped(candidates, here)
    return sorted(chosen), True  # by index: node order


def _distance(index: int, here: int) -> float:
    """How far node `index` is from node `here`; a node just before it comes first."""
    return here - index if index < here else index - here + 0.5


def _rank(typed: str, here: int) -> Callable[[Candidate], tuple[bool, bool, bool, float]]:
    """The order `_nearest` keeps: typed text at the id's start, then inside it; the
    trigger; then the distance to node `here`."""
    def rank(candidate: Candidate) -> tuple[bool, bool, bool, float]:
        index, ident, kind = candidate
        ident = ident.lower()
        return (not ident.startswith(typed), typed not in ident, kind != TRIGGER,
                _distance(index, here))
    return rank


def _nearest_untyped(candidates: list[Candidate], here: int) -> list[Candidate]:
    """`_rank`'s first MAX_NODE_ITEMS when nothing is typed, found by walking out from
    `here` instead of ranking every candidate (5,000 key calls: 6 ms)."""
    chosen = sorted((c for c in candidates if c[2] == TRIGGER),
                    key=lambda c: _distance(c[0], here))[:MAX_NODE_ITEMS]
    right = bisect_left(candidates, here, key=lambda c: c[0])
    left = right - 1
    while len(chosen) < MAX_NODE_ITEMS and (left >= 0 or right < len(candidates)):
        if right >= len(candidates) or (
                left >= 0 and _distance(candidates[left][0], here)
                < _distance(candidates[right][0], here)):
            pick, left = candidates[left], left - 1
        else:
            pick, right = candidates[right], right + 1
        if pick[2] != TRIGGER:
            chosen.append(pick)
    return chosen


# --- nodes array ------------------------------------------------------------------


_NODE_BODIES: dict[str, list[tuple[str, str]]] = {
    TRIGGER: [],
    AGENT: [("prompt", "Describe the task")],
    "condition": [("expression", 'out.node.key == \\"value\\"')],
    "approval": [("question", "Approve?")],
    "output": [("deliver", "notification")],
    NOTE: [("text", "Note")],
}


def _fresh_id(design: Design, kind: str) -> str:
    n = 1
    while f"{kind}{n}" in design.by_id:
        n += 1
    return f"{kind}{n}" if kind != TRIGGER or TRIGGER in design.by_id else TRIGGER


def _new_node_items(design: Design, snippets: bool, wrap: bool = False) -> list[Completion]:
    last_step = next((i.id for i in reversed(design.infos)
                      if i.id is not None and i.kind != NOTE), None)
    items = []
    for order, kind in enumerate(KINDS):
        ident = _fresh_id(design, kind)
        parts = [f'"id": "{"${1:" + ident + "}" if snippets else ident}"', f'"type": "{kind}"']
        tab = 2
        if kind not in (TRIGGER, NOTE):
            parent = f'"{last_step}"' if last_step else ""
            parts.append(f'"after": [{"${" + str(tab) + ":" + parent + "}" if snippets else parent}]')
            tab += 1
        for key, example in _NODE_BODIES[kind]:
            value = "${" + str(tab) + ":" + _snippet_escape(example) + "}" if snippets else example
            parts.append(f'"{key}": "{value}"')
            tab += 1
        body = "{" + ", ".join(parts) + "}"
        if wrap:
            body = "[" + body + "]"
        items.append(Completion(label=f"new {kind} node", kind=SNIPPET, insert_text=body,
                                start=0, end=0, detail=f"{{ \"type\": \"{kind}\" … }}",
                                documentation=KIND_DOCS[kind], snippet=snippets,
                                sort_text=f"{order:02d}", filter_text=kind))
    return items


def _new_nodes(ctx: CursorContext, design: Design, snippets: bool) -> list[Completion]:
    items = _new_node_items(design, snippets)
    for item in items:
        item.start, item.end = ctx.token_start, max(ctx.token_end, ctx.offset)
    return items


# --- expression --------------------------------------------------------------------


def _expression(ctx: CursorContext, design: Design, info: NodeInfo,
                run: RunInfo | None) -> list[Completion]:
    raw = ctx.prefix
    base = ctx.token_start + 1  # first character inside the string
    end_of_word = _end_of_word(ctx)
    match = _EXPR_START.match(raw)
    if match:
        start = base + (match.start(1) if match.group(1) else len(raw))
        return [
            Completion(label=f"out.{c.id}", kind=NODE, insert_text=f"out.{c.id}.", start=start,
                       end=end_of_word, detail=_node_detail(c), documentation=c.first_line(),
                       sort_text=f"{rank}{c.index:03d}")
            for rank, c in _readable_nodes(design, info)
        ]
    match = _EXPR_NODE.match(raw)
    if match:
        start = base + match.start(1) if match.group(1) else base + len(raw)
        return [
            Completion(label=c.id, kind=NODE, insert_text=f"{c.id}.", start=start,
                       end=end_of_word, detail=_node_detail(c), documentation=c.first_line(),
                       sort_text=f"{rank}{c.index:03d}")
            for rank, c in _readable_nodes(design, info)
        ]
    match = _EXPR_PATH.match(raw)
    if match:
        node_id = match.group(1)
        segments = [_segment(s) for s in match.group(2).split(".") if s]
        start = base + (match.start(3) if match.group(3) else len(raw))
        return _paths(run, node_id, segments, start, end_of_word)
    match = _EXPR_OPERATOR.match(raw)
    if match:
        start = base + match.start(3)
        return [
            Completion(label=op, kind=OPERATOR, insert_text=op + " ", start=start,
                       end=max(ctx.offset, start + len(match.group(3))), detail="operator",
                       documentation=_OP_DOCS[op], sort_text=f"{i}")
            for i, op in enumerate(("==", "!=", "<", "<=", ">", ">="))
        ]
    match = _EXPR_LITERAL.match(raw)
    if match:
        node_id = match.group(1)
        segments = [_segment(s) for s in match.group(2).split(".") if s]
        start = base + match.start(4)
        return _literals(run, node_id, segments, start, max(ctx.offset, end_of_word))
    return []


_OP_DOCS = {
    "==": "equal (JSON equality: true never equals 1)",
    "!=": "not equal",
    "<": "less than (numbers with numbers, strings with strings)",
    "<=": "less than or equal",
    ">": "greater than",
    ">=": "greater than or equal",
}


def _segment(text: str) -> str | int:
    return int(text) if re.fullmatch(r"0|[1-9][0-9]*", text) else text


def _end_of_word(ctx: CursorContext) -> int:
    """The cursor's word may continue after it (completing in the middle of a name)."""
    text = ctx.source
    match = re.compile(r"[A-Za-z0-9_-]*").match(text, ctx.offset)
    return match.end() if match else ctx.offset


def _readable_nodes(design: Design, info: NodeInfo) -> list[tuple[int, NodeInfo]]:
    """Nodes a condition may read: upstream first, then unrelated; never itself or below."""
    self_id = info.id
    upstream = ancestors(design.nodes, self_id) if self_id else set()
    below = design.descendants_of(self_id) if self_id else set()
    out = []
    for other in design.infos:
        if other.id is None or other.id == self_id or not has_output(other.kind):
            continue
        if design.by_id.get(other.id) is not other or other.id in below:
            continue
        out.append((0 if other.id in upstream else 1, other))
    out.sort(key=lambda pair: (pair[0], pair[1].index))
    return out


def _preview(value: Any, limit: int = 80) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _paths(run: RunInfo | None, node_id: str, segments: list[str | int], start: int,
           end: int) -> list[Completion]:
    if run is None or node_id not in run.outputs:
        return []
    found, value = resolve_path(run.outputs[node_id], segments)
    if not found:
        return []
    where = ".".join(str(s) for s in [node_id, *segments])
    items = []
    if isinstance(value, dict):
        entries = [(k, v) for k, v in value.items() if re.fullmatch(_NAME, str(k))]
    elif isinstance(value, list):
        entries = [(str(i), v) for i, v in enumerate(value)]
    else:
        return []
    for order, (key, child) in enumerate(entries[:MAX_PATH_ITEMS]):
        container = isinstance(child, dict | list)
        items.append(Completion(
            label=str(key), kind=PATH, insert_text=f"{key}." if container else str(key),
            start=start, end=end, detail=_preview(child),
            documentation=f"`out.{where}.{key}` in run `{run.run_id}` ({run.status}):\n\n"
            f"```json\n{_preview(child, 500)}\n```",
            sort_text=f"{order:04d}",
        ))
    return items


def _literals(run: RunInfo | None, node_id: str, segments: list[str | int], start: int,
              end: int) -> list[Completion]:
    seen: list[Any] = []
    if run is not None and node_id in run.outputs:
        found, value = resolve_path(run.outputs[node_id], segments)
        if found and not isinstance(value, dict | list):
            seen.append(value)
    items = []
    for order, value in enumerate(seen):
        literal = json.dumps(value, ensure_ascii=False)
        items.append(Completion(
            label=literal, kind=LITERAL, insert_text=json.dumps(literal, ensure_ascii=False)[1:-1],
            start=start, end=end, detail=f"seen in run {run.run_id}",
            documentation="The value of this path in the newest run.", sort_text=f"0{order:03d}",
        ))
    for order, word in enumerate(("true", "false", "null")):
        if any(json.dumps(v) == word for v in seen):
            continue
        items.append(Completion(label=word, kind=LITERAL, insert_text=word, start=start,
                                end=end, detail="literal", sort_text=f"1{order}"))
    return items
