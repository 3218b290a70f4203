"""Completion: kinds, fields, enums, node ids, condition parts, new-node snippets.

Works on whatever the person has typed so far: the cursor context comes from
`context.cursor_context`, which tolerates unterminated strings, missing commas
and anything after the cursor.  Items carry the offsets they replace and
where the cursor is; the server picks the edit form the client reads (an insert/replace
edit, else a range that ends at the cursor: Neovim keeps whatever follows the cursor).

Shapes every client accepts (issue 29):
- inside a string the edit starts after the opening quote, so the typed word is the
  client's filter prefix in every client, and a closing quote already there is reused,
  never replaced (no `"channel""` where the client keeps the text after the cursor);
- plain text (no snippet support) has no whitespace (Neovim's omnifunc inserts a plain
  item's text up to its first space) and no placeholder values: empty strings for the
  author's own words, valid intended values elsewhere;
- snippets (`${1:x}`) only when `snippets=True`.
"""

from __future__ import annotations

import heapq
import json
import re
from bisect import bisect_left
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from ..jsontext.jsontree import JsonNode, ParsedDocument
from ..rules.conditions import resolve_path
from ..rules.vocabulary import (
    KIND_DOCS,
    KINDS,
    NOTE,
    RULES,
    TRIGGER,
    Field,
    field_named,
    fields_for,
)
from . import completion_rank
from .context import ITEM, KEY, NONE, VALUE, CursorContext, cursor_context
from .design import Candidate, Design, NodeInfo, design_of, has_output
from .new_node import body_fields, new_node_id, starting_value
from .newest_run import RunInfo

KIND_ITEM, FIELD, ENUM, NODE, PATH, OPERATOR, LITERAL, SNIPPET, PROPERTY = (
    "kind", "field", "enum", "node", "path", "operator", "literal", "snippet", "property")

MAX_PATH_ITEMS = 200
_WORD_TAIL = re.compile(r"[A-Za-z0-9_.\-]*")
_WORD = re.compile(r"[A-Za-z0-9_-]*")
"""A word of a condition (an id or a path segment): it may go on after the cursor."""
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
    cursor: int | None = None
    """Where the insert range ends (the cursor; None: `end`).  [cursor, end) is at most the
    rest of the word under the cursor, so text kept there by a client stays valid JSON."""
    reuses_quote: bool = False
    """The string's own closing quote (at `end`) closes what insert_text opens."""


class Completions(list):
    """The items offered at a spot, and whether more exist than are listed."""

    def __init__(self, items: Iterable[Completion] = (), incomplete: bool = False) -> None:
        super().__init__(items)
        self.incomplete = incomplete
        """Some were left out (MAX_NODE_ITEMS): the client asks again as the user types."""


def complete(doc: ParsedDocument, offset: int, *, run: RunInfo | None = None,
             snippets: bool = True, past_cursor: bool = False,
             design: Design | None = None) -> Completions:
    """Completions at `offset`; none when nothing fits.  Never raises on any document.

    `past_cursor`: the client applies an edit past the cursor (an insert/replace edit, or
    eglot's whole range; not Neovim), so the one item no edit up to the cursor can serve
    (a number or list field typed in an auto-closed string) replaces that closing quote."""
    ctx = cursor_context(doc, offset)
    design = design or design_of(doc)
    after_value = _after_a_value(ctx)
    if after_value is not None:  # `"deliver": "notification"|`: the next fields, with the ','
        ctx = after_value
    items = _separated(ctx, _items(ctx, design, run, snippets, past_cursor), snippets)
    for item in items:  # the text after the cursor may stay only inside a string
        if item.start <= ctx.offset <= item.end and (ctx.in_string or ctx.offset == item.end) \
                and item.cursor is None:
            item.cursor = ctx.offset
    if items and not any(item.preselect for item in items):  # VS Code selects it first
        min(items, key=lambda i: (i.sort_text or i.label, i.label)).preselect = True
    return items if isinstance(items, Completions) else Completions(items)


def _after_a_value(ctx: CursorContext) -> CursorContext | None:
    """Right after a complete member value in a node object (no ',' yet): the context of a
    new key there, so the fields offered bring their own separator."""
    member = ctx.member
    if ctx.role != NONE or not ctx.in_design_node or ctx.in_string or member is None \
            or member.value is None or ctx.offset < member.value.end:
        return None
    if ctx.source[member.value.end:ctx.offset].strip():
        return None
    if member.value.kind == "string" and not member.value.closed:
        return None
    return replace(ctx, role=KEY, key=None, member=None, token_start=ctx.offset,
                   token_end=ctx.offset, prefix="", has_colon=False)


def _items(ctx: CursorContext, design: Design, run: RunInfo | None,
           snippets: bool, past_cursor: bool = False) -> list[Completion]:
    following = _value_after(ctx)
    if following is not None and following.kind in ("object", "array"):
        return []
    if ctx.in_string and ctx.offset <= ctx.token_start:
        return []  # before a string's opening quote, not in it  # a list or object is there already: never replaced by a keystroke
    if ctx.role == VALUE and ctx.in_design_node:
        return _values(ctx, design, run, snippets)
    if ctx.role == KEY and ctx.in_design_node:
        return _fields(ctx, design, snippets, past_cursor)
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


def _separated(ctx: CursorContext, items: list[Completion],
               snippets: bool = True) -> list[Completion]:
    """Accepting an item keeps valid JSON valid: a ',' before what follows it and, for a
    new member or item, after what precedes it.  The ',' goes in the item's text where it
    touches it, else in an additional edit (after a string's own closing quote, before an
    opening quote the edit starts after).  A value after its key's ':' needs only the
    first; a key whose ':' is there already, or text inside a condition string, needs none."""
    if not items or ctx.role not in (KEY, VALUE, ITEM) or (ctx.role == KEY and ctx.has_colon) \
            or (ctx.role == VALUE and ctx.key == "expression" and ctx.in_string):
        return items
    text = ctx.source
    comma = ", " if snippets else ","
    for item in items:
        ends = ctx.token_end if item.reuses_quote else item.end
        if _significant_after(text, ends) not in _ENDS_A_VALUE:
            if item.reuses_quote:
                _add_edit(item, (ends, ends, ","), append=True)
            else:
                item.insert_text += ","
        if ctx.role == VALUE:
            continue
        opening = ctx.token_start if ctx.in_string else item.start
        before = _significant_before(text, opening)
        if before < 0 or text[before] in "{[,:":
            continue
        if before + 1 == item.start:  # right after it: the separator leads the text
            item.insert_text = comma + item.insert_text
        else:
            _add_edit(item, (before + 1, before + 1, ","))
    return items


def _add_edit(item: Completion, edit: tuple[int, int, str], append: bool = False) -> None:
    """One more additional edit; text inserted at an offset that already has one joins it
    (after it when `append`), as clients leave the order of two insertions open."""
    edits = list(item.additional_edits)
    for i, (start, end, new) in enumerate(edits):
        if start == end == edit[0] == edit[1]:
            edits[i] = (start, end, new + edit[2] if append else edit[2] + new)
            break
    else:
        edits.append(edit)
    item.additional_edits = tuple(edits)


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
    """What a JSON value completion replaces: inside a string, its text after the opening
    quote up to the end of the word under the cursor (`_string_span`); else the bare word,
    or the value right after the cursor."""
    if ctx.in_string:
        start, end, _ = _string_span(ctx)
        return start, end
    following = _value_after(ctx)
    if following is not None:  # `"key": |value`: the value is what a completion replaces
        return ctx.token_start, following.end
    return ctx.token_start, max(ctx.token_end, ctx.offset)


def _string_span(ctx: CursorContext) -> tuple[int, int, bool]:
    """(start, end, reuses its closing quote) of an edit inside the string at the cursor.

    It starts after the opening quote, so what the person typed is the filter prefix in
    every client.  A closing quote on the line stays and closes the text inserted; the
    edit ends at the end of the cursor's word before it."""
    start = ctx.token_start + 1
    tail = _WORD_TAIL.match(ctx.source, ctx.offset)
    word_end = tail.end() if tail else ctx.offset
    if ctx.string_closed:
        return start, min(word_end, ctx.token_end - 1), True
    return start, word_end, False


def _in_string_text(ctx: CursorContext, value: str) -> tuple[str, bool]:
    """A JSON string's text for an edit made by `_string_span`: no opening quote, and a
    closing one only when the string has none."""
    body = json.dumps(value, ensure_ascii=False)[1:-1]
    _, _, reuse = _string_span(ctx)
    return (body, True) if reuse else (body + '"', False)


def _value_after(ctx: CursorContext) -> JsonNode | None:
    """The member's value when the cursor is between its ':' and that value."""
    member = ctx.member
    if ctx.role != VALUE or ctx.in_string or member is None or member.value is None:
        return None
    value = member.value
    if value.start < ctx.offset or ctx.source[ctx.offset:value.start].strip():
        return None
    return value


def _with_range(ctx: CursorContext, item: Completion) -> Completion:
    item.start, item.end = _value_range(ctx)
    return item


def quoted_item(ctx: CursorContext, label: str, kind: str, *, detail: str | None = None,
                documentation: str | None = None, sort: str | None = None) -> Completion:
    """`label` as a JSON string where the cursor is, in or out of a string (the design
    test file's completion uses it too)."""
    start, end = _value_range(ctx)
    reuse = False
    if ctx.in_string:
        text, reuse = _in_string_text(ctx, label)
    else:
        text = json.dumps(label, ensure_ascii=False)
    return Completion(label=label, kind=kind, insert_text=text, start=start, end=end,
                      detail=detail, documentation=documentation, sort_text=sort,
                      filter_text=label, reuses_quote=reuse)


def member_item(ctx: CursorContext, name: str, kind: str, value: str, *, snippets: bool,
                past_cursor: bool = False, detail: str | None = None,
                documentation: str | None = None, sort: str | None = None) -> Completion:
    """`"name": value` at a key, the cursor at the value (the key alone when its ':' is
    there): a whole member, so accepting it leaves valid JSON (the design test file's node
    maps use it too)."""
    start, end = _key_range(ctx)
    text, reuse, whole = _member_item(ctx, name, value, snippets, past_cursor)
    return Completion(label=name, kind=kind, insert_text=text, start=start,
                      end=end if whole is None else whole, cursor=whole, detail=detail,
                      documentation=documentation, snippet=snippets and "$" in text,
                      sort_text=sort, filter_text=name, reuses_quote=reuse)


# --- values ------------------------------------------------------------------------


def _values(ctx: CursorContext, design: Design, run: RunInfo | None,
            snippets: bool) -> list[Completion]:
    """What may go where the cursor is in a value, by the key the value belongs to."""
    info = design.info_at(ctx.node_index)
    key = ctx.key
    if key == "type":
        return _kinds(ctx, design)
    if key == "expression" and ctx.in_string and info is not None:
        return _expression(ctx, design, info, run)
    if key == "after" and not ctx.in_string and info is not None:
        return _after_lists(ctx, design, info)
    field = _field_named_anywhere(info.kind if info is not None else None, key)
    if field is None:
        return []
    if field.enum:
        return [
            quoted_item(ctx, value, ENUM, detail=f"{field.name}", documentation=field.doc,
                         sort=f"{i:02d}")
            for i, value in enumerate(field.enum)
        ]
    if field.type == "integer" and not ctx.in_string and field.maximum is not None:
        return _whole_numbers(ctx, field)
    return []


def _kinds(ctx: CursorContext, design: Design) -> list[Completion]:
    """The node kinds, in the order what follows the node makes likely."""
    return [
        quoted_item(ctx, kind, KIND_ITEM, detail="node kind", documentation=KIND_DOCS[kind],
                     sort=f"{i:02d}")
        for i, kind in enumerate(completion_rank.kinds_for(design, ctx.node_index))
    ]


def _after_lists(ctx: CursorContext, design: Design, info: NodeInfo) -> Completions:
    """A whole `after` list naming one node, the nearest first (at most `_nearest`'s cap)."""
    start, end = _value_range(ctx)
    candidates, incomplete = _nearest(_after_candidates(design, info.id, ()), ctx)
    sort = completion_rank.after_sorter(design, info, [])
    return Completions([
        Completion(label=f'["{c.id}"]', kind=NODE, insert_text=json.dumps([c.id]),
                   start=start, end=end, detail=_node_detail(c),
                   sort_text=sort(c))
        for c in (design.info_at(index) for index, _, _ in candidates)
    ], incomplete)


def _field_named_anywhere(kind: str | None, key: str | None) -> Field | None:
    """The field `key` of a node of `kind`; of any kind when its own has none or no kind."""
    field = field_named(kind, key) if kind in KINDS and key else None
    if field is None and key:
        field = next((f for k in KINDS for f in fields_for(k) if f.name == key), None)
    return field


def _whole_numbers(ctx: CursorContext, field: Field) -> list[Completion]:
    """Every value of a small range, else its bounds and the usual hour and day."""
    start, end = _value_range(ctx)
    values = range(field.minimum, field.maximum + 1) if field.maximum - field.minimum <= 5 \
        else sorted({field.minimum, 60, 1440, field.maximum})
    return [Completion(label=str(v), kind=LITERAL, insert_text=str(v), start=start, end=end,
                       detail=field.name, documentation=field.doc, sort_text=f"{i:02d}")
            for i, v in enumerate(values)]


# --- keys --------------------------------------------------------------------------


def _key_range(ctx: CursorContext) -> tuple[int, int]:
    if ctx.in_string:
        start, end, _ = _string_span(ctx)
        return start, end
    return ctx.token_start, max(ctx.token_end, ctx.offset)


def _value_text(field: Field, snippets: bool, context: dict[str, Any]) -> str:
    """A field's value as inserted after its key (`new_node.starting_value`): a snippet
    with empty tab stops for the author's own words; plain text with valid, intended
    values only (no placeholder prose a client would insert as real: an empty string
    the author fills in)."""
    value = starting_value(field, context.get("parent"), context.get("upstream"))
    if not snippets:
        return json.dumps(value, separators=(",", ":"))
    if field.type == "enum":  # a placeholder, not a choice: yasnippet inserts `1|a,b|`
        return f'"${{1:{_snippet_escape(value)}}}"'
    if field.type == "integer":
        return f"${{1:{value}}}"
    if field.type == "id-list":
        return f'["${{1:{value[0]}}}"]' if value else "[$1]"
    if field.type == "string-list":
        inner = ", ".join(f'"${{{i + 1}:{v}}}"' for i, v in enumerate(value))
        return f"[{inner}]"
    return f'"{value}$1"'  # empty, or an expression's `out.<id>.` to finish


def _member_item(ctx: CursorContext, name: str, value: str, snippets: bool,
                 past_cursor: bool = False) -> tuple[str, bool, int | None]:
    """(text, reuses the closing quote, the end it replaces when that is past the cursor's
    word) of `"name": value` at a key."""
    colon = ": " if snippets else ":"
    if not ctx.in_string:
        text = json.dumps(name) if ctx.has_colon else f"{json.dumps(name)}{colon}{value}"
        return text, False, None
    body, reuse = _in_string_text(ctx, name)
    if ctx.has_colon:
        return body, reuse, None
    if not reuse:
        return f"{body}{colon}{value}", False, None
    if value.startswith('"') and value.endswith('"'):  # the key's quote closes the value
        return f'{name}"{colon}{value[:-1]}', True, None
    # A value that is not a string cannot end before a quote the client keeps, and clients
    # apply an edit after the cursor at shifted offsets (`r:0etries`): the closing quote is
    # replaced where the client replaces past the cursor, else the key alone.
    if past_cursor:
        return f'{name}"{colon}{value}', False, ctx.token_end
    return body, True, None


def _snippet_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("$", "\\$").replace("}", "\\}")


def _fields(ctx: CursorContext, design: Design, snippets: bool,
            past_cursor: bool = False) -> list[Completion]:
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
    context = completion_rank.value_context(design, info)
    model = completion_rank.written_like(design, info)
    written = {m.key: m.value.value if m.value is not None else None
               for m in (ctx.container.members or ()) if m is not ctx.member}
    items = []
    for order, field in enumerate(candidates):
        if field.name in present:
            continue
        doc = field.doc
        if field.required:
            doc += "\n\nRequired."
        text, reuse, whole = _member_item(ctx, field.name, _value_text(field, snippets, context),
                                          snippets, past_cursor)
        items.append(Completion(
            label=field.name, kind=FIELD, insert_text=text, start=start,
            end=end if whole is None else whole, cursor=None if whole is None else whole,
            detail=f"{kind or 'any'} field" + (" (required)" if field.required else ""),
            documentation=doc, snippet=snippets and "$" in text,
            sort_text=f"{completion_rank.field_sort(kind, field, model, written)}{order:02d}",
            filter_text=field.name, reuses_quote=reuse,
        ))
    return items


def _top_keys(ctx: CursorContext, design: Design, snippets: bool) -> list[Completion]:
    present = {m.key for m in (ctx.container.members or ()) if m is not ctx.member}
    start, end = _key_range(ctx)
    out = []
    values = {
        "name": '"${1:my-design}"' if snippets else '""',
        "nodes": '[\n\t{"id": "${1:start}", "type": "trigger"}$0\n]' if snippets
        else '[{"id":"start","type":"trigger"}]',
    }
    docs = {
        "name": ("design name", "The design's name: `^[a-z0-9][a-z0-9_.-]{0,63}$`. "
                 "Runs of this design are found by it."),
        "nodes": ("the design's nodes", RULES["graph-shape"]),
    }
    for order, key in enumerate(("name", "nodes")):
        if key in present:
            continue
        text, reuse, _ = _member_item(ctx, key, values[key], snippets)
        out.append(Completion(key, PROPERTY, text, start, end, detail=docs[key][0],
                              documentation=docs[key][1], snippet=snippets and "$" in text,
                              sort_text=f"{order}", filter_text=key, reuses_quote=reuse))
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
    sort = completion_rank.after_sorter(design, info, listed)
    return Completions([
        quoted_item(ctx, c.id, NODE, detail=_node_detail(c), documentation=c.first_line(),
                     sort=sort(c))
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




def _new_node_items(design: Design, snippets: bool, wrap: bool = False,
                    index: int | None = None) -> list[Completion]:
    """One item per kind that may come next (`completion_rank.kinds_for`): the node's id,
    type, `after` the step above it, and its payload fields (empty tab stops or strings)."""
    above = completion_rank.step_above(design, index)
    context = {"parent": above.id if above is not None else None,
               "upstream": above.id if above is not None and has_output(above.kind) else None}
    items = []
    sep, colon = (", ", ": ") if snippets else (",", ":")
    for order, kind in enumerate(completion_rank.kinds_for(design, index, new=True)):
        ident = new_node_id(design, kind)
        tab = 1
        parts = [f'"id"{colon}"' + (f"${{{tab}:{ident}}}" if snippets else ident) + '"',
                 f'"type"{colon}"{kind}"']
        fields: list[Field] = []
        if kind not in (TRIGGER, NOTE) and context["parent"]:
            fields.append(field_named(kind, "after"))
        fields += body_fields(kind)
        for spec in fields:
            value = _value_text(spec, snippets, context)
            if snippets:
                value = _renumber(value, tab)
                tab += value.count("$")
            parts.append(f'"{spec.name}"{colon}{value}')
        body = "{" + sep.join(parts) + "}"
        if wrap:
            body = "[" + body + "]"
        items.append(Completion(label=f"{kind} node", kind=SNIPPET, insert_text=body,
                                start=0, end=0, detail=f"{{ \"type\": \"{kind}\" … }}",
                                documentation=KIND_DOCS[kind], snippet=snippets,
                                sort_text=f"{order:02d}", filter_text=kind,
                                preselect=order == 0))
    return items


def _renumber(snippet: str, after: int) -> str:
    """A value's tab stops ($1, ${1:x}, ${1|a|}) renumbered to follow tab stop `after`."""
    return re.sub(r"\$(\{?)(\d+)", lambda m: f"${m.group(1)}{int(m.group(2)) + after}", snippet)


def _new_nodes(ctx: CursorContext, design: Design, snippets: bool) -> list[Completion]:
    index = _index_in_nodes(ctx)
    items = _new_node_items(design, snippets, index=index)
    for item in items:
        item.start, item.end = ctx.token_start, max(ctx.token_end, ctx.offset)
    return items


def _index_in_nodes(ctx: CursorContext) -> int:
    """Where in `nodes` a node written at the cursor lands."""
    items = ctx.container.items or [] if ctx.container is not None else []
    return sum(1 for item in items if item.end <= ctx.offset)


# --- expression --------------------------------------------------------------------


def _expression(ctx: CursorContext, design: Design, info: NodeInfo,
                run: RunInfo | None) -> list[Completion]:
    """A condition string in the document: `expression_items` on its raw text, the
    offsets moved to the document's."""
    base = ctx.token_start + 1  # first character inside the string
    items = expression_items(ctx.source[base:_end_of_word(ctx)], ctx.offset - base, design,
                             info, run)
    for item in items:
        item.start += base
        item.end += base
    return items


def expression_items(text: str, offset: int, design: Design, info: NodeInfo,
                     run: RunInfo | None, *, in_json: bool = True) -> list[Completion]:
    """The parts of `out.<node>.<path> <op> <literal>` that fit at `offset` of a condition's
    text (the cursor's word may go on after it), ranges in `text`: the node ids `info`
    may read, the newest run's paths, the operators, literals.  `in_json`: `text` is the
    raw inside of a JSON string, so a string literal is written escaped; the canvas's
    inspector gives the expression itself (`expression_completion.py`)."""
    raw = text[:offset]
    end_of_word = _WORD.match(text, offset).end()
    match = _EXPR_START.match(raw)
    if match:
        start = match.start(1) if match.group(1) else len(raw)
        return [
            Completion(label=f"out.{c.id}", kind=NODE, insert_text=f"out.{c.id}.", start=start,
                       end=end_of_word, detail=_node_detail(c), documentation=c.first_line(),
                       sort_text=f"{rank:02d}{i:03d}")
            for i, (rank, c) in enumerate(completion_rank.readable_nodes(design, info))
        ]
    match = _EXPR_NODE.match(raw)
    if match:
        start = match.start(1) if match.group(1) else len(raw)
        return [
            Completion(label=c.id, kind=NODE, insert_text=f"{c.id}.", start=start,
                       end=end_of_word, detail=_node_detail(c), documentation=c.first_line(),
                       sort_text=f"{rank:02d}{i:03d}")
            for i, (rank, c) in enumerate(completion_rank.readable_nodes(design, info))
        ]
    match = _EXPR_PATH.match(raw)
    if match:
        node_id = match.group(1)
        segments = [_segment(s) for s in match.group(2).split(".") if s]
        start = match.start(3) if match.group(3) else len(raw)
        return _paths(run, node_id, segments, start, end_of_word)
    match = _EXPR_OPERATOR.match(raw)
    if match:
        start = match.start(3)
        return [
            Completion(label=op, kind=OPERATOR, insert_text=op + " ", start=start,
                       end=max(offset, start + len(match.group(3))), detail="operator",
                       documentation=_OP_DOCS[op], sort_text=f"{i}")
            for i, op in enumerate(("==", "!=", "<", "<=", ">", ">="))
        ]
    match = _EXPR_LITERAL.match(raw)
    if match:
        node_id = match.group(1)
        segments = [_segment(s) for s in match.group(2).split(".") if s]
        return _literals(run, node_id, segments, match.start(4), max(offset, end_of_word),
                         match.group(3), match.group(4), in_json=in_json)
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
    return _WORD.match(ctx.source, ctx.offset).end()


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
              end: int, operator: str = "==", typed: str = "", *,
              in_json: bool = True) -> list[Completion]:
    """Literals after an operator: the value the newest run saw first, a number typed so
    far, and for `==`/`!=` the JSON words; an ordering operator compares numbers (or
    strings), so it is offered no true/false/null."""
    seen: list[Any] = []
    if run is not None and node_id in run.outputs:
        found, value = resolve_path(run.outputs[node_id], segments)
        if found and not isinstance(value, dict | list):
            seen.append(value)
    ordering = operator not in ("==", "!=")
    if ordering:
        seen = [v for v in seen if isinstance(v, int | float | str) and not isinstance(v, bool)]
    if re.fullmatch(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?", typed) and \
            not any(json.dumps(v) == typed for v in seen):
        seen.append(json.loads(typed))
    items = []
    for order, value in enumerate(seen):
        literal = json.dumps(value, ensure_ascii=False)
        from_run = run is not None and order == 0 and node_id in run.outputs
        items.append(Completion(
            label=literal, kind=LITERAL,
            insert_text=json.dumps(literal, ensure_ascii=False)[1:-1] if in_json else literal,
            start=start, end=end,
            detail=f"seen in run {run.run_id}" if from_run else "literal",
            documentation="The value of this path in the newest run." if from_run else None,
            sort_text=f"0{order:03d}", preselect=order == 0,
        ))
    if ordering:
        return items
    for order, word in enumerate(("true", "false", "null")):
        if any(json.dumps(v) == word for v in seen):
            continue
        items.append(Completion(label=word, kind=LITERAL, insert_text=word, start=start,
                                end=end, detail="literal", sort_text=f"1{order}"))
    return items
