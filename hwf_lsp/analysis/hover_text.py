"""Hover: what a kind or field means (from the vocabulary) and what a node is and did.

A node reference (its id, an `after` entry, `out.<id>` in a condition) shows the
node's kind, title, the first line of its prompt (or question, expression,
text) and, from the newest run on disk, its status and a preview of its output.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ..jsontext.jsontree import ParsedDocument, source_offset
from ..rules.conditions import (
    NAME_PATTERN,
    ConditionError,
    evaluate,
    parse_condition,
    resolve_path,
)
from ..rules.model_gate import GATE_KEY, ModelGate
from ..rules.step_words import debug_edits, debug_mark, edit_place, step_sentence, times_text
from ..rules.vocabulary import EDITOR_RULES, KIND_DOCS, KINDS, RULES, Field, field_named
from .context import ITEM, KEY, VALUE, cursor_context
from .design import Design, NodeInfo, design_of
from .navigation import occurrence_at
from .newest_run import RunInfo

PREVIEW_CHARS = 400
FIELD_RULES = {
    "id": "identity", "type": "known-kind", "after": "edges", "prompt": "required-payload",
    "question": "required-payload", "expression": "condition", "retries": "retries",
    "timeout_minutes": "deadline", "on_timeout": "deadline", "deliver": "delivery",
    "target": "delivery", "color": "note-color",
}
_EXPR_PATH = re.compile(r"\s*out\.(" + NAME_PATTERN + r")((?:\." + NAME_PATTERN + r")*)")


@dataclass(frozen=True, slots=True)
class HoverResult:
    markdown: str
    start: int
    end: int
    about_model: bool = False
    """On a node's `model` field: the trust gate's state belongs in it (`with_gate`)."""


def hover(doc: ParsedDocument, offset: int, run: RunInfo | None = None,
          design: Design | None = None) -> HoverResult | None:
    """What is under the cursor.  On a `model` field the caller adds the trust gate
    (`with_gate`): reading it is I/O, done only for that hover."""
    design = design or design_of(doc)
    occ = occurrence_at(doc, offset, design)
    if occ is not None:
        info = design.by_id.get(occ.node_id)
        text = node_markdown(info, run) if info else f"No node has the id `{occ.node_id}`."
        return HoverResult(text, occ.start, occ.end)
    ctx = cursor_context(doc, offset)
    if ctx.role == ITEM and ctx.path[2:] == ("options",):
        return _option_hover(ctx, design)
    if not ctx.in_design_node or ctx.member is None:
        return _top_level(ctx)
    info = design.info_at(ctx.node_index)
    member = ctx.member
    if ctx.role == KEY and member.key_start <= offset <= member.key_end:
        return _field_hover(info, member.key, member.key_start, member.key_end)
    if ctx.role != VALUE or member.value is None:
        return None
    value = member.value
    if member.key == "type" and isinstance(value.value, str) and value.value in KINDS:
        return HoverResult(kind_markdown(value.value), value.start, value.end)
    if member.key == "expression" and value.kind == "string":
        found = _expression_path(doc, design, value, offset, run) or \
            _comparison(doc, value, offset, run)
        if found is not None:
            return found
    return _field_hover(info, member.key, value.start, value.end)


def _option_hover(ctx: Any, design: Design) -> HoverResult | None:
    """One of an approval's options: whether answering it prunes the branch."""
    option = ctx.string_node
    if option is None or not isinstance(option.value, str) or ctx.node_index is None or \
            design.info_at(ctx.node_index).kind != "approval":
        return None
    if option.value == "reject":
        text = ("**reject** · approval answer — prunes: the approval is skipped, and so is "
                "everything after it.")
    else:
        text = (f"**{option.value}** · approval answer — continues: the steps after the "
                "approval run. Only `reject` prunes.")
    return HoverResult(text, option.start, option.end)


def gate_markdown(gate: ModelGate) -> str:
    """The trust gate's state, where it is set, and how to change it."""
    text = f"**Trust gate {'open' if gate.open else 'closed'}** — {gate.detail()}."
    if not gate.open and gate.narrowed_by is None:
        text += f" Set `{GATE_KEY}: true` in `{gate.config_path}` to pass this model on."
    return text


def _top_level(ctx: Any) -> HoverResult | None:
    member = ctx.member
    if ctx.path != () or member is None or ctx.role != KEY:
        return None
    docs = {"name": "**name** — the design's name (`^[a-z0-9][a-z0-9_.-]{0,63}$`); runs of the "
                    "design are found by it.",
            "nodes": f"**nodes** — the design's nodes. Rule `graph-shape`: {RULES['graph-shape']}."}
    if member.key in docs:
        return HoverResult(docs[member.key], member.key_start, member.key_end)
    return None


def kind_markdown(kind: str) -> str:
    return f"**{kind}** (node kind)\n\n{KIND_DOCS[kind]}"


def field_markdown(field: Field, kind: str | None) -> str:
    head = f"**{field.name}** · {kind + ' ' if kind else ''}field · {field.type}"
    lines = [head, "", field.doc]
    facts = []
    if field.required:
        facts.append("required")
    if field.minimum is not None and field.maximum is not None:
        facts.append(f"allowed: {field.minimum}–{field.maximum}")
    if field.enum:
        facts.append("allowed: " + ", ".join(json.dumps(v) for v in field.enum))
    if field.default is not None:
        facts.append(f"default: `{json.dumps(field.default)}`")
    if facts:
        lines += ["", " · ".join(facts)]
    rule = FIELD_RULES.get(field.name)
    if rule:
        lines += ["", f"Rule `{rule}`: {RULES[rule]}"]
    return "\n".join(lines)


def with_gate(result: HoverResult, gate: ModelGate) -> HoverResult:
    """A `model` field's hover with whether and where the trust gate is open."""
    return HoverResult(result.markdown + "\n\n" + gate_markdown(gate), result.start, result.end)


def _field_hover(info: NodeInfo, key: str, start: int, end: int) -> HoverResult:
    kind = info.kind if info.kind in KINDS else None
    field = field_named(kind, key) if kind else None
    if field is not None:
        text = field_markdown(field, kind)
    else:  # a field of another kind, or none
        field = next((f for k in KINDS if (f := field_named(k, key)) is not None), None)
        text = f"**{key}** — {EDITOR_RULES['unknown-field']}." if field is None else \
            field_markdown(field, None) + (f"\n\n`{key}` is not a field of {kind} nodes."
                                           if kind else "")
    return HoverResult(text, start, end, about_model=key == "model")


def _preview(value: Any, limit: int = PREVIEW_CHARS, indent: int | None = 1) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, indent=indent)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def node_markdown(info: NodeInfo, run: RunInfo | None) -> str:
    head = f"**{info.id}** · {info.kind or 'no kind'}"
    if info.title:
        head += f" — {info.title}"
    lines = [head]
    line = info.first_line()
    if line:
        lines += ["", f"> {line}"]
    if run is not None and info.id is not None:
        lines += run_markdown(run, info.id)
    return "\n".join(lines)


def run_markdown(run: RunInfo, node_id: str) -> list[str]:
    """What the newest run's facts say of one step (`rules.run_facts`, words of
    `rules.step_words`): its state and why, when it ran, its failed attempts, its output."""
    fact = run.fact(node_id)
    if fact is None:
        return []
    lines = ["", f"Newest run `{run.run_id}` ({run.status}): {step_sentence(fact)}"]
    mark = debug_mark(run.state)
    if mark is not None:
        lines += ["", mark[0].upper() + mark[1:] + "."]
        lines += [f"- `{edit_place(edit)}` edited: `{_preview(edit.get('old'), 60, None)}` → "
                  f"`{_preview(edit.get('new'), 60, None)}`"
                  for edit in debug_edits(run.state) or () if edit.get("node") == node_id]
    when = times_text(fact)
    if when:
        lines += ["", when[0].upper() + when[1:]]
    for number, attempt in enumerate(fact.get("attempts") or (), 1):
        lines += ["", f"Attempt {number} failed at {attempt.get('at')}: {attempt.get('error')}"]
    if node_id in run.outputs:
        lines += ["", "```json", _preview(run.outputs[node_id]), "```"]
    return lines


def _expression_path(doc: ParsedDocument, design: Design, value: Any, offset: int,
                     run: RunInfo | None) -> HoverResult | None:
    """Hover on a path segment of `out.<node>.<path>`: that value in the newest run."""
    match = _EXPR_PATH.match(value.value)
    if not match or not match.group(2):
        return None
    base = match.start(2)
    segments = match.group(2)[1:].split(".")
    pos = base + 1
    for index, segment in enumerate(segments):
        start = source_offset(doc.text, value, pos)
        end = source_offset(doc.text, value, pos + len(segment))
        if start <= offset <= end:
            path = [int(s) if re.fullmatch(r"0|[1-9][0-9]*", s) else s
                    for s in segments[: index + 1]]
            where = f"out.{match.group(1)}." + ".".join(segments[: index + 1])
            if run is None or match.group(1) not in run.outputs:
                return HoverResult(f"`{where}` — no run of this design has an output for "
                                   f"`{match.group(1)}` yet.", start, end)
            found, got = resolve_path(run.outputs[match.group(1)], path)
            if not found:
                return HoverResult(f"`{where}` — not in the newest run's output "
                                   f"(run `{run.run_id}`).", start, end)
            return HoverResult(f"`{where}` in run `{run.run_id}`:\n\n```json\n"
                               f"{_preview(got)}\n```", start, end)
        pos += len(segment) + 1
    return None


def _comparison(doc: ParsedDocument, value: Any, offset: int,
                run: RunInfo | None) -> HoverResult | None:
    """Hover on the operator or the literal: the newest run's actual value of the path and
    whether the condition held."""
    try:
        condition = parse_condition(value.value)
    except ConditionError:
        return None
    for span in (condition.op_span, condition.literal_span):
        start = source_offset(doc.text, value, span[0])
        end = source_offset(doc.text, value, span[1])
        if start <= offset <= end:
            break
    else:
        return None
    where = f"out.{condition.node}." + ".".join(str(s) for s in condition.path)
    written = f"`{where} {condition.op} {json.dumps(condition.literal, ensure_ascii=False)}`"
    if run is None or condition.node not in run.outputs:
        return HoverResult(f"{written} — no run of this design has an output for "
                           f"`{condition.node}` yet.", start, end)
    found, actual = resolve_path(run.outputs[condition.node], condition.path)
    held, why = evaluate(condition, run.outputs)
    shown = f"`{_preview(actual, 120, None)}`" if found else "*absent*"
    verdict = "**true**" if held else "**false**" + (f" ({why})" if why else "")
    return HoverResult(f"{written}\n\nIn run `{run.run_id}`: `{where}` is {shown}; the "
                       f"condition was {verdict}.", start, end)

