"""A design test file's text (`*.hwf-test.json`, contract 7) as the editor sees it.

The checker (`rules/design_test_check.py`, the one `hwf test` runs) says what is
wrong and where, as JSON pointers; here a pointer becomes the span of its key or value,
so the editor marks exactly what `hwf test` names.  Completion and hover read the design
the file names (a value handed in: reading it is I/O, the server's job): node ids of the
right kind, an approval's options, the run facts' step states.  Pure: no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..jsontext.jsontree import JsonNode, Member, ParsedDocument
from ..rules.design_test_check import TestFileError
from ..rules.run_facts import approval_options
from ..rules.step_words import STEP_ICONS, STEP_STATES
from ..rules.vocabulary import (
    AGENT,
    APPROVAL,
    CONDITION,
    MAIN_FIELD,
    OUTPUT,
    RUN_STATUSES,
)
from .completion_items import (
    ENUM,
    LITERAL,
    NODE,
    Completion,
    Completions,
    member_item,
    quoted_item,
)
from .context import ITEM, KEY, VALUE, CursorContext, cursor_context
from .findings import syntax_findings
from .hover_text import HoverResult
from .locate import Finding

if TYPE_CHECKING:
    from ..workflow.design_test_run import Difference

RULE = "design-test"
"""The code of every test-file error (docs/rules.md)."""
STEP_KINDS = (AGENT, CONDITION, APPROVAL, OUTPUT)
SHOWN = 200
"""A main field longer than this is cut in a hover."""


# --- where an error is -----------------------------------------------------------


def pointer_parts(pointer: str) -> list[str]:
    """The reference tokens of a JSON pointer (RFC 6901), unescaped."""
    if not pointer:
        return []
    return [part.replace("~1", "/").replace("~0", "~") for part in pointer[1:].split("/")]


def resolve(doc: ParsedDocument, pointer: str) -> tuple[JsonNode | None, Member | None]:
    """(the value at `pointer`, the member it is the value of, if any); the deepest
    existing value when the pointer goes further than the text."""
    node, member = doc.root, None
    for part in pointer_parts(pointer):
        if node is None:
            break
        if node.kind == "object":
            found = next((m for m in reversed(node.members or []) if m.key == part), None)
            if found is None or found.value is None:
                return node, member
            node, member = found.value, found
        elif node.kind == "array" and part.isdigit() and int(part) < len(node.items or []):
            node, member = (node.items or [])[int(part)], None
        else:
            break
    return node, member


def error_span(doc: ParsedDocument, error: TestFileError) -> tuple[int, int]:
    """The text an error marks: its key (an unknown key or node id), else its value; a
    container's value is marked by its key or, for an array item or the root, its
    opening bracket, never many lines."""
    node, member = resolve(doc, error.pointer)
    if node is None:
        return 0, 0
    if member is not None and (error.at_key or node.kind in ("object", "array")):
        return member.key_start, member.key_end
    if node.kind in ("object", "array"):
        return node.start, node.start + 1
    return node.start, node.end


def findings_of_test_file(doc: ParsedDocument, errors: Iterable[TestFileError]) -> list[Finding]:
    """The syntax errors, then the checker's errors each at its span, by start offset."""
    located = [Finding(RULE, "error", _message(error), *error_span(doc, error),
                       field=error.field) for error in errors]
    located.sort(key=lambda f: (f.start, f.end))
    return syntax_findings(doc) + located


def findings_of_failures(doc: ParsedDocument,
                         failures: Iterable[tuple[str, int, Difference]]) -> list[Finding]:
    """A case's failing expectations (case name, case index, difference), each at its
    `expect` entry: the status, or the node's entry in `steps`, `outputs`, `delivered`."""
    out = []
    for name, index, difference in failures:
        parts = ["cases", str(index), "expect", difference.part]
        if difference.node is not None:
            parts.append(difference.node)
        at = "/" + "/".join(p.replace("~", "~0").replace("/", "~1") for p in parts)
        out.append(Finding(RULE, "error", f"case {name!r} fails: {difference.message}",
                           *_entry_span(doc, at), field=difference.part))
    return out


def _entry_span(doc: ParsedDocument, at: str) -> tuple[int, int]:
    """An `expect` entry: its key and a scalar value (`"publish": "done"`), a container
    value by its key alone (never many lines)."""
    node, member = resolve(doc, at)
    if node is None:
        return 0, 0
    if member is None:
        return node.start, node.end if node.kind not in ("object", "array") else node.start + 1
    return member.key_start, member.key_end if node.kind in ("object", "array") else node.end


def _message(error: TestFileError) -> str:
    return f"case {error.case!r}: {error.msg}" if error.case is not None else error.msg


# --- the design under test ------------------------------------------------------


def nodes_of(design: Any) -> dict[str, dict[str, Any]]:
    """The design's nodes by id (first wins), from whatever the design file held."""
    nodes: dict[str, dict[str, Any]] = {}
    raw = design.get("nodes") if isinstance(design, dict) else None
    for node in raw if isinstance(raw, list) else []:
        if isinstance(node, dict) and isinstance(node.get("id"), str):
            nodes.setdefault(node["id"], node)
    return nodes


def _delivers(node: dict[str, Any]) -> bool:
    return node.get("type") == OUTPUT and bool(node.get("deliver"))


NODE_PLACES: dict[tuple[str, ...], Any] = {
    ("agents",): lambda node: node.get("type") == AGENT,
    ("answers",): lambda node: node.get("type") == APPROVAL,
    ("failing_deliveries",): _delivers,
    ("expect", "steps"): lambda node: node.get("type") in STEP_KINDS,
    ("expect", "outputs"): lambda node: node.get("type") in STEP_KINDS,
    ("expect", "delivered"): lambda node: node.get("type") == OUTPUT,
    ("expect", "warnings"): lambda node: node.get("type") == "condition",
}
"""Where a case names nodes (its path inside the case) and which nodes fit there."""


def _in_case(path: tuple[str | int, ...]) -> tuple[str | int, ...] | None:
    """The path inside a case (`("expect", "steps")`), or None outside any case."""
    if len(path) >= 2 and path[0] == "cases" and isinstance(path[1], int):
        return path[2:]
    return None


def _names_a_node(ctx: CursorContext) -> bool:
    """Whether the cursor is where a node id goes: a key of a node map, an item of
    failing_deliveries."""
    inner = _in_case(ctx.path)
    if inner is None or inner not in NODE_PLACES:
        return False
    return ctx.role == (ITEM if inner == ("failing_deliveries",) else KEY)


# --- completion -----------------------------------------------------------------


MEMBER_VALUES: dict[tuple[str, ...], tuple[str, str]] = {
    ("agents",): ('{"output":""}', '{"output": "$1"}'),
    ("answers",): ('""', '"$1"'),
    ("expect", "steps"): ('""', '"$1"'),
    ("expect", "outputs"): ('""', '"$1"'),
    ("expect", "delivered"): ("true", "${1:true}"),
}
"""The value a node key of a map is completed with (plain text, snippet): empty where the
author's words go (never a made-up answer, state or output), so the member is whole JSON."""


def complete_test_file(doc: ParsedDocument, offset: int, design: Any, *,
                       snippets: bool = False, past_cursor: bool = False) -> Completions:
    """Node ids of the right kind where a case names a node (a map's key as a whole member,
    `"publish": ""`), an approval's options as its answer, step states in `expect.steps`,
    run statuses in `expect.status`."""
    ctx = cursor_context(doc, offset)
    inner = _in_case(ctx.path)
    if inner is None:
        return Completions()
    nodes = nodes_of(design)
    items: list[Completion] = []
    if _names_a_node(ctx):
        fits = NODE_PLACES[inner]  # type: ignore[index]
        taken = _siblings(ctx)
        value = MEMBER_VALUES.get(inner)  # type: ignore[arg-type]
        items = [quoted_item(ctx, node_id, NODE, detail=_kind_title(node),
                             documentation=node_markdown(node_id, node), sort=f"{i:04d}")
                 if value is None else
                 member_item(ctx, node_id, NODE, value[snippets], snippets=snippets,
                             past_cursor=past_cursor, detail=_kind_title(node),
                             documentation=node_markdown(node_id, node), sort=f"{i:04d}")
                 for i, (node_id, node) in enumerate(nodes.items())
                 if fits(node) and node_id not in taken]
    elif ctx.role == VALUE and inner == ("answers",) and ctx.key in nodes:
        options = approval_options(nodes[ctx.key].get("options"))
        items = [quoted_item(ctx, option, LITERAL, detail=f"option of {ctx.key}",
                             sort=f"{i:04d}") for i, option in enumerate(options)]
    elif ctx.role == VALUE and inner == ("expect", "steps"):
        items = [quoted_item(ctx, state, ENUM, detail=f"{STEP_ICONS[state]} step state",
                             sort=f"{i:04d}") for i, state in enumerate(STEP_STATES)]
    elif ctx.role == VALUE and inner == ("expect",) and ctx.key == "status":
        items = [quoted_item(ctx, status, ENUM, detail="run status", sort=f"{i:04d}")
                 for i, status in enumerate(RUN_STATUSES)]
    for item in items:  # the text after the cursor stays only inside a string
        if item.start <= ctx.offset <= item.end and (ctx.in_string or ctx.offset == item.end) \
                and item.cursor is None:
            item.cursor = ctx.offset
    return Completions(items)


def _siblings(ctx: CursorContext) -> set[str]:
    """Ids already named in the same map or list, but the one under the cursor."""
    container = ctx.container
    if container is None:
        return set()
    if container.kind == "object":
        return {m.key for m in container.members or [] if ctx.member is not m
                and not m.key_start <= ctx.offset <= m.key_end}
    return {n.value for n in container.items or [] if isinstance(n.value, str)
            and not n.start <= ctx.offset <= n.end}


# --- hover ----------------------------------------------------------------------


def hover_test_file(doc: ParsedDocument, offset: int, design: Any) -> HoverResult | None:
    """On a node id a case names: the node's kind, title and main field."""
    ctx = cursor_context(doc, offset)
    node_id, start, end = _id_under(ctx, offset)
    if node_id is None or not _names_a_node_here(ctx, offset):
        return None
    node = nodes_of(design).get(node_id)
    if node is None:
        return None
    return HoverResult(node_markdown(node_id, node), start, end)


def _id_under(ctx: CursorContext, offset: int) -> tuple[str | None, int, int]:
    """The string under the cursor (a key or an item) and its span."""
    member = ctx.member
    if member is not None and member.key_start <= offset <= member.key_end:
        return member.key, member.key_start, member.key_end
    string = ctx.string_node
    if string is not None and isinstance(string.value, str):
        return string.value, string.start, string.end
    return None, 0, 0


def _names_a_node_here(ctx: CursorContext, offset: int) -> bool:
    inner = _in_case(ctx.path)
    if inner is None or inner not in NODE_PLACES:
        return False
    if inner == ("failing_deliveries",):
        return ctx.role == ITEM
    member = ctx.member
    return member is not None and member.key_start <= offset <= member.key_end


def _kind_title(node: dict[str, Any]) -> str:
    kind = node.get("type") if isinstance(node.get("type"), str) else "node"
    title = node.get("title")
    return f"{kind} · {title}" if isinstance(title, str) and title else str(kind)


def node_markdown(node_id: str, node: dict[str, Any]) -> str:
    """`**id** · kind — title`, then the kind's main field (prompt, expression,
    question, deliver), cut at SHOWN characters."""
    kind = node.get("type") if isinstance(node.get("type"), str) else None
    head = f"**{node_id}** · {kind or 'node of no kind'}"
    title = node.get("title")
    if isinstance(title, str) and title:
        head += f" — {title}"
    lines = [head]
    field = MAIN_FIELD.get(kind or "")
    value = node.get(field) if field else None
    if field and value is not None and field != "title":
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        text = text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"
        lines += ["", f"{field}:", "", "```text", text.replace("```", "`\u200b``"), "```"]
    if kind == APPROVAL:
        options = approval_options(node.get("options"))
        lines += ["", "options: " + ", ".join(f"`{o}`" for o in options)]
    return "\n".join(lines)
