"""Quick fixes, one or more for every rule; none trades one error for another.

| rule             | fix                                                                |
| graph-shape      | empty or missing `nodes`: insert a trigger; a non-object entry: remove it |
| identity         | a duplicate, empty or missing id: a unique id                     |
| one-trigger      | none: insert a trigger; a second: make it an agent (with a prompt), or delete it |
| known-kind       | the nearest kind, with the payload that kind needs               |
| required-payload | insert the field empty, for its author to write (not in Fix All) |
| edges            | the nearest id, or remove the entry                               |
| acyclic          | remove the edge that closes the cycle                             |
| retries/deadline | clamp into the allowed range; the nearest on_timeout             |
| delivery         | notification, or channel (with a target: not in Fix All)         |
| condition        | `=`, `=>`, `=<` -> the operator meant; the nearest node id        |
| note-color       | the nearest color                                                  |
| field-type       | a value of the right type; remove a bad list element             |
| json-syntax      | insert a missing ',' or ':'; remove a trailing ','               |
| unknown-field    | rename to the suggestion; remove the field                        |
| not-upstream     | add the node read to `after` (unless that closes a cycle)         |
| path-absent      | the nearest path the newest run's output has                      |
| duplicate-key    | delete the ignored copy                                           |
"""

from __future__ import annotations

import difflib
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

from ..jsontext.jsontree import JsonNode, Member, ParsedDocument
from ..rules.conditions import INDEX_SEGMENT_RE, NAME_RE
from ..rules.graph import would_create_cycle
from ..rules.names import check_design_name, legal_design_name
from ..rules.vocabulary import (
    AGENT,
    DELIVER_VALUES,
    KINDS,
    NOTE,
    NOTE_COLORS,
    ON_TIMEOUT_VALUES,
    TRIGGER,
    field_named,
    fields_for,
    required_payloads,
)
from .design import Design, NodeInfo, design_of
from .locate import Finding
from .suggestions import nearest_parent

Edit = tuple[int, int, str]
_SUGGESTION = re.compile(r"did you mean '([^']+)'")
_ENUMS = {"on_timeout": ON_TIMEOUT_VALUES, "deliver": DELIVER_VALUES, "color": NOTE_COLORS}
_OPERATORS_MEANT = (("=>", ">="), ("=<", "<="), ("=", "=="))
TARGET_EXAMPLE = field_named("output", "target").example
PATHS_SHOWN = 500
"""At most this many paths of a run's output are offered as did-you-means."""


@dataclass(slots=True)
class Fix:
    title: str
    finding: Finding
    edits: list[Edit] = field(default_factory=list)
    preferred: bool = False


@dataclass(frozen=True, slots=True)
class _At:
    """What every rule's fixes may read."""

    doc: ParsedDocument
    design: Design
    finding: Finding
    info: NodeInfo | None
    run_outputs: dict | None

    @property
    def raw(self) -> str:
        return self.doc.text[self.finding.start:self.finding.end]


def fixes_for(doc: ParsedDocument, findings: list[Finding],
              run_outputs: dict | None = None, design: Design | None = None) -> list[Fix]:
    """Every fix for the given findings (usually those under the cursor); `run_outputs`
    (the newest run's) enables the path did-you-mean."""
    design = design or design_of(doc)
    out: list[Fix] = []
    for finding in findings:
        info = None
        if finding.index is not None and 0 <= finding.index < len(design.infos):
            info = design.infos[finding.index]
        handler = _HANDLERS.get(finding.rule)
        if handler is None:
            continue
        try:
            out.extend(handler(_At(doc, design, finding, info, run_outputs)))
        except Exception:  # noqa: BLE001 - no fix beats a crash
            continue
    return out


# --- small helpers ---------------------------------------------------------


def _by_closeness(word: str, choices: list[str] | tuple[str, ...]) -> list[str]:
    """Every choice, the closest to `word` first (ties: the vocabulary's order)."""
    return sorted(choices, key=lambda c: -difflib.SequenceMatcher(None, word, c).ratio())


def _nearest(word: str, choices: list[str] | tuple[str, ...]) -> str | None:
    choices = [c for c in choices if c]
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.0)
    return close[0] if close else None


def _string(raw: str) -> str | None:
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def _remove(spans: list[tuple[int, int]], index: int) -> Edit:
    """Delete spans[index] from a comma-separated list of spans, with one comma."""
    start, end = spans[index]
    if index + 1 < len(spans):
        return start, spans[index + 1][0], ""
    if index > 0:
        return spans[index - 1][1], end, ""
    return start, end, ""


def _item_spans(items: list[JsonNode]) -> list[tuple[int, int]]:
    return [(item.start, item.end) for item in items]


def _member_spans(obj: JsonNode) -> list[tuple[int, int]]:
    return [(m.key_start, m.end) for m in obj.members or ()]


def _insert_member(obj: JsonNode, text: str) -> Edit:
    """Insert `"key": value` as the last member of `obj`."""
    members = obj.members or []
    if members:
        end = members[-1].end
        return end, end, ", " + text
    return obj.start + 1, obj.start + 1, text


def _after_items(info: NodeInfo) -> list[JsonNode]:
    member = info.member("after")
    if member is None or member.value is None or member.value.items is None:
        return []
    return member.value.items


def _replace(at: _At, new: Any) -> list[Edit]:
    return [(at.finding.start, at.finding.end, json.dumps(new, ensure_ascii=False))]


def _unique_id(design: Design, base: str) -> str:
    base = "-".join(NAME_RE.findall(base)) or "node"
    ident, n = base, 2
    while ident in design.by_id:
        ident = f"{base}-{n}"
        n += 1
    return ident


def _payload_edits(info: NodeInfo, kind: str) -> list[Edit]:
    """Insert what `kind` cannot run without and the node lacks, empty: a prompt, question
    or expression is the author's to write (a made-up one would run as if they had), so
    its finding stays until they do."""
    members = []
    for spec in required_payloads(kind):
        if spec.name in info.data:
            continue
        members.append(f'"{spec.name}": ""')
    return [_insert_member(info.obj, ", ".join(members))] if members else []


# --- per rule ----------------------------------------------------------------


def _graph_shape(at: _At) -> list[Fix]:
    msg = at.finding.msg
    if msg.startswith("nodes is empty") or msg.startswith("a design needs a nodes list"):
        return _trigger_fix(at)
    if at.info is not None and at.finding.index is not None and at.finding.field is None:
        nodes = at.doc.node_at_path(("nodes",))
        if nodes is not None and nodes.items:
            return [Fix("Remove this entry (a node is an object)", at.finding,
                        [_remove(_item_spans(nodes.items), at.finding.index)])]
    return []


def _identity(at: _At) -> list[Fix]:
    info = at.info
    if info is None or info.obj is None:
        return []
    base = info.data.get("id") if isinstance(info.data.get("id"), str) else ""
    ident = _unique_id(at.design, base or info.kind or "node")
    member = info.member("id")
    if member is not None and member.value is not None:
        return [Fix(f"Change id to '{ident}'", at.finding,
                    [(member.value.start, member.value.end, json.dumps(ident))], preferred=True)]
    return [Fix(f"Add id '{ident}'", at.finding,
                [_insert_member(info.obj, f'"id": {json.dumps(ident)}')], preferred=True)]


def _one_trigger(at: _At) -> list[Fix]:
    info = at.info
    if info is None:
        return _trigger_fix(at)
    fixes = [Fix("Make it an agent", at.finding,
                 _replace(at, AGENT) + _payload_edits(info, AGENT), preferred=True)]
    used = info.id is not None and any(
        info.id in (other.data.get("after") or ()) for other in at.design.infos
        if other is not info and isinstance(other.data.get("after"), list))
    nodes = at.doc.node_at_path(("nodes",))
    if not used and nodes is not None and nodes.items:
        fixes.append(Fix("Delete this trigger", at.finding,
                         [_remove(_item_spans(nodes.items), info.index)]))
    return fixes


def _trigger_fix(at: _At) -> list[Fix]:
    root = at.doc.root
    ident = _unique_id(at.design, TRIGGER)
    node = json.dumps({"id": ident, "type": TRIGGER})
    nodes = None
    member = None
    for m in reversed(root.members or []) if root is not None and root.kind == "object" else ():
        if m.key == "nodes":
            member, nodes = m, m.value
            break
    if nodes is None or nodes.kind != "array":
        if root is None or root.kind != "object":
            return []
        if member is not None and member.value is not None:
            if member.value.kind in ("object", "array") and member.value.end - \
                    member.value.start > 2:
                return []  # something is written there: do not throw it away
            edit = (member.value.start, member.value.end, f"[{node}]")
        else:
            edit = _insert_member(root, f'"nodes": [{node}]')
    elif nodes.items:
        first = nodes.items[0]
        edit = (first.start, first.start, node + ", ")
    else:
        edit = (nodes.start + 1, nodes.end - 1 if nodes.closed else nodes.start + 1, node)
    return [Fix("Add a trigger node", at.finding, [edit], preferred=True)]


def _guess_kind(info: NodeInfo) -> str:
    """The first step kind whose fields cover the node's (else agent)."""
    for kind in (AGENT, "condition", "approval", "output", NOTE):
        names = {f.name for f in fields_for(kind)}
        if set(info.data) <= names:
            return kind
    return AGENT


def _known_kind(at: _At) -> list[Fix]:
    info = at.info
    if info is None or info.obj is None:
        return []
    member = info.member("type")
    if member is None:
        kind = _guess_kind(info)
        edits = [_insert_member(info.obj, f'"type": "{kind}"')]
        edits += _payload_edits(info, kind)
        return [Fix(f"Add type '{kind}'", at.finding, _merged(edits), preferred=True)]
    current = _string(at.raw)
    if current is None:
        return []
    return [Fix(f"Change type to '{kind}'", at.finding,
                _replace(at, kind) + _payload_edits(info, kind), preferred=i == 0)
            for i, kind in enumerate(_closest_kinds(current, info))]


def _closest_kinds(word: str, info: NodeInfo) -> list[str]:
    """Every kind but a trigger, closest first: the spelling when it is close, else the
    step kinds whose fields cover the node's.  A note is offered last, and first only when
    the node is written like one: making a step a note silently drops it from the run."""
    steps = [k for k in KINDS if k not in (TRIGGER, NOTE)]
    close = difflib.get_close_matches(word, steps, n=len(steps), cutoff=0.6)
    covering = [k for k in steps if set(info.data) <= {f.name for f in fields_for(k)}]
    order = close + [k for k in covering if k not in close] + [k for k in steps
                                                                if k not in close + covering]
    note_like = set(info.data) - {"id", "type", "title", "after"} <= {"text", "color"} and \
        ("text" in info.data or difflib.get_close_matches(word, [NOTE], cutoff=0.6))
    return [NOTE, *order] if note_like and not close else [*order, NOTE]


def _merged(edits: list[Edit]) -> list[Edit]:
    """Insertions at one offset as one edit, in order (LSP leaves their order open)."""
    out: list[Edit] = []
    for edit in edits:
        if out and out[-1][0] == out[-1][1] == edit[0] == edit[1]:
            out[-1] = (edit[0], edit[1], out[-1][2] + edit[2])
        else:
            out.append(edit)
    return out


def _required_payload(at: _At) -> list[Fix]:
    info = at.info
    if info is None or info.obj is None:
        return []
    fixes = []
    for spec in required_payloads(info.kind or ""):
        member = info.member(spec.name)
        if member is not None and member.value is not None and member.value.kind == "string":
            continue  # an empty one is there: only its author can fill it
        edit = (member.value.start, member.value.end, '""') if member is not None and \
            member.value is not None else _insert_member(info.obj, f'"{spec.name}": ""')
        fixes.append(Fix(f"Add an empty {spec.name} to write", at.finding, [edit]))
    return fixes  # never preferred: Fix All leaves the finding, it invents no content


def _edges(at: _At) -> list[Fix]:
    info = at.info
    if info is None:
        return []
    items = _after_items(info)
    index = next((i for i, item in enumerate(items) if item.start == at.finding.start), None)
    if index is None:
        return []
    entry = _string(at.raw)
    shown = entry if entry is not None else at.raw
    removal = Fix(f"Remove '{shown}' from after", at.finding, [_remove(_item_spans(items), index)])
    design = at.design
    if entry is None or entry == info.id or design.kind_of(entry) == NOTE or \
            entry in design.by_id:
        removal.preferred = True
        return [removal]
    listed = [item.value for item in items]
    best = nearest_parent(entry, info.id, [(i.id, i.kind) for i in design.infos], listed)
    fixes = []
    # the id the finding's "did you mean" names (analysis/suggestions.py), unless taking it
    # would close a cycle (one error traded for another)
    if best and not (info.id and would_create_cycle(design.nodes, info.id, best)):
        fixes.append(Fix(f"Change to '{best}'", at.finding, _replace(at, best), preferred=True))
    else:  # no id it could have meant: an edge to nothing goes
        removal.preferred = True
    fixes.append(removal)
    return fixes


def _acyclic(at: _At) -> list[Fix]:
    info = at.info
    items = _after_items(info) if info is not None else []
    index = next((i for i, item in enumerate(items) if item.start == at.finding.start), None)
    if index is None:
        return []
    return [Fix(f"Remove '{_string(at.raw)}' from after (breaks the cycle)", at.finding,
                [_remove(_item_spans(items), index)], preferred=True)]


def _clamp(at: _At) -> list[Fix]:
    name = at.finding.field
    if name in _ENUMS:  # every allowed value, the closest first
        current = _string(at.raw)
        values = _by_closeness(current if current is not None else at.raw, _ENUMS[name])
        return [Fix(f"Change {name} to '{value}'" if value else f"Change {name} to \"\"",
                    at.finding, _replace(at, value), preferred=i == 0)
                for i, value in enumerate(values)]
    kind = at.info.kind if at.info is not None else None
    spec = field_named(kind, name) if kind else None
    if spec is None or spec.minimum is None or spec.maximum is None:
        return []
    try:
        value: Any = json.loads(at.raw)
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
    return [Fix(f"Set {name} to {clamped} (allowed {spec.minimum}–{spec.maximum})", at.finding,
                [(at.finding.start, at.finding.end, str(clamped))], preferred=True)]


def _target_edits(info: NodeInfo) -> list[Edit]:
    """A target placeholder where the node has no usable one."""
    target = info.data.get("target")
    if isinstance(target, str) and ":" in target:
        return []
    member = info.member("target")
    if member is not None and member.value is not None:
        new = "slack:" + target if isinstance(target, str) and target.strip() else \
            TARGET_EXAMPLE
        return [(member.value.start, member.value.end, json.dumps(new, ensure_ascii=False))]
    return [_insert_member(info.obj, f'"target": {json.dumps(TARGET_EXAMPLE)}')]


def _delivery(at: _At) -> list[Fix]:
    info = at.info
    if info is None or info.obj is None:
        return []
    if at.finding.field == "target":  # which channel is the author's to name: not Fix all's
        return [Fix("Set a channel target", at.finding, _target_edits(info))]
    current = _string(at.raw)
    best = _nearest(current if current is not None else at.raw, DELIVER_VALUES)
    notify = Fix("Change deliver to 'notification'", at.finding, _replace(at, "notification"),
                 preferred=best == "notification")
    target = _target_edits(info)
    channel = Fix("Change deliver to 'channel'" + (" with a target" if target else ""),
                  at.finding, _replace(at, "channel") + target,
                  preferred=best == "channel" and not target)  # Fix all names no channel
    return [channel, notify] if best == "channel" else [notify, channel]


def _condition(at: _At) -> list[Fix]:
    text, start = at.doc.text, at.finding.start
    if "expected an operator" in at.finding.msg:
        for wrong, meant in _OPERATORS_MEANT:
            if text.startswith(wrong, start):
                return [Fix(f"Change '{wrong}' to '{meant}'", at.finding,
                            [(start, start + len(wrong), meant)], preferred=True)]
        return []
    match = re.match(r"expression reads out\.(\S+), but no node has the id", at.finding.msg)
    if match is None or at.info is None:
        return []
    candidates = [i.id for i in at.design.infos if i.id and i.id != at.info.id
                  and i.kind not in (NOTE, TRIGGER) and NAME_RE.fullmatch(i.id)]
    best = difflib.get_close_matches(match.group(1), candidates, n=1, cutoff=0.5)
    if not best or at.raw != match.group(1):
        return []
    return [Fix(f"Change to '{best[0]}'", at.finding,
                [(at.finding.start, at.finding.end, best[0])], preferred=True)]


def _field_type(at: _At) -> list[Fix]:
    info = at.info
    if info is None or at.finding.field is None:
        return []
    member = info.member(at.finding.field)
    value = member.value if member is not None else None
    if value is not None and value.items and (at.finding.start, at.finding.end) != (
            value.start, value.end):
        spans = _item_spans(value.items)
        if (at.finding.start, at.finding.end) in spans:
            index = spans.index((at.finding.start, at.finding.end))
            return [Fix("Remove this entry", at.finding, [_remove(spans, index)],
                        preferred=True)]
    spec = field_named(info.kind, at.finding.field) if info.kind else None
    if spec is not None and spec.type == "string" and value is not None and \
            value.kind in ("number", "true", "false"):
        written = at.doc.text[value.start:value.end]  # `title: 42` meant the text "42"
        return [Fix(f"Make {spec.name} the text {json.dumps(written)}", at.finding,
                    [(value.start, value.end, json.dumps(written))], preferred=True)]
    example = spec.default if spec is not None and spec.default else \
        spec.example if spec is not None else None
    if example is None or value is None:
        return []
    return [Fix(f"Set {spec.name} to {json.dumps(example)}", at.finding,
                [(value.start, value.end, json.dumps(example))], preferred=True)]


def _json_syntax(at: _At) -> list[Fix]:
    text, finding = at.doc.text, at.finding
    if any(issue.msg == "Unterminated string" for issue in at.doc.errors):
        return []  # every other message after one is a guess
    if finding.msg.startswith("Expected ','"):
        index = finding.start - 1
        while index >= 0 and text[index] in " \t\r\n":
            index -= 1
        if index < 0 or text[index] in "[{,:":
            return []
        return [Fix("Insert the missing ','", finding, [(index + 1, index + 1, ",")],
                    preferred=True)]
    if finding.msg.startswith("Expected ':'") and text[finding.end - 1:finding.end] == '"':
        return [Fix("Insert the missing ':'", finding, [(finding.end, finding.end, ":")],
                    preferred=True)]
    if finding.msg == "Trailing comma" and text[finding.start:finding.end] == "," and \
            text[finding.end:].lstrip(" \t\r\n")[:1] in ("]", "}"):
        return [Fix("Remove the trailing ','", finding, [(finding.start, finding.end, "")],
                    preferred=True)]
    return []


def _unknown_field(at: _At) -> list[Fix]:
    info = at.info
    fixes = []
    match = _SUGGESTION.search(at.finding.msg)
    taken = info is not None and match is not None and info.member(match.group(1))
    if match and at.raw.startswith('"') and not taken:
        fixes.append(Fix(f"Rename to '{match.group(1)}'", at.finding,
                         _replace(at, match.group(1)), preferred=True))
    if info is not None and info.obj is not None:
        spans = _member_spans(info.obj)
        index = next((i for i, (s, _e) in enumerate(spans) if s == at.finding.start), None)
        if index is not None:
            fixes.append(Fix(f"Remove the field '{at.finding.field}'", at.finding,
                             [_remove(spans, index)]))
    return fixes


def _not_upstream(at: _At) -> list[Fix]:
    info = at.info
    if info is None or info.obj is None or info.id is None:
        return []
    target = at.raw
    if would_create_cycle(at.design.nodes, info.id, target):
        return []
    return [Fix(f"Add '{target}' to after", at.finding, _append_to_list(info, "after", target),
                preferred=True)]


def _append_to_list(info: NodeInfo, key: str, item: str) -> list[Edit]:
    """`item` added at the end of the node's `key` list (the list made, if need be)."""
    member = info.member(key)
    quoted = json.dumps(item)
    if member is not None and member.value is not None and member.value.kind == "array":
        array = member.value
        if array.items:
            end = array.items[-1].end
            return [(end, end, ", " + quoted)]
        return [(array.start + 1, array.start + 1, quoted)]
    if member is not None and member.value is not None:
        return [(member.value.start, member.value.end, f"[{quoted}]")]
    return [_insert_member(info.obj, f'"{key}": [{quoted}]')]


def _no_reject(at: _At) -> list[Fix]:
    """Both no-reject warnings (the options, the deadline) go away with 'reject' listed."""
    info = at.info
    if info is None or info.obj is None or info.member("options") is None:
        return []
    return [Fix("Add 'reject' to options", at.finding, _append_to_list(info, "options", "reject"),
                preferred=True)]


def _design_name(at: _At) -> list[Fix]:
    """The name made legal as a file stem is (`names.legal_design_name`)."""
    name = _string(at.raw)
    if name is None:
        return []
    legal = legal_design_name(name)
    try:
        check_design_name(legal)
    except ValueError:  # a reserved file name: "con", "nul"…
        legal = f"{legal}-design"
    return [Fix(f"Change name to {legal!r}", at.finding, _replace(at, legal), preferred=True)]


def output_paths(value: Any, limit: int = PATHS_SHOWN) -> list[str]:
    """Dotted paths a condition can read in `value` (keys a condition can spell only),
    breadth first, at most `limit`."""
    out: list[str] = []
    queue: list[tuple[str, Any]] = [("", value)]
    while queue and len(out) < limit:
        prefix, current = queue.pop(0)
        if isinstance(current, dict):
            children = [(k, v) for k, v in current.items()
                        if isinstance(k, str) and NAME_RE.fullmatch(k)]
        elif isinstance(current, list):
            children = [(str(i), v) for i, v in enumerate(current[:50])]
        else:
            continue
        for key, child in children:
            path = f"{prefix}.{key}" if prefix else key
            out.append(path)
            queue.append((path, child))
    return out[:limit]


def _path_absent(at: _At) -> list[Fix]:
    outputs = at.run_outputs
    info = at.info
    expression = info.data.get("expression") if info is not None else None
    match = re.match(r"\s*out\.([A-Za-z0-9_-]+)\.", expression or "")
    if not isinstance(outputs, dict) or match is None or match.group(1) not in outputs:
        return []
    paths = output_paths(outputs[match.group(1)])
    best = difflib.get_close_matches(at.raw, paths, n=3, cutoff=0.4)
    if not best and paths and not INDEX_SEGMENT_RE.fullmatch(paths[0]):
        best = paths[:1]
    return [Fix(f"Change the path to '{path}'", at.finding,
                [(at.finding.start, at.finding.end, path)], preferred=i == 0)
            for i, path in enumerate(best)]


def _duplicate_key(at: _At) -> list[Fix]:
    chain = at.doc.path_to_offset(at.finding.start + 1)
    member = next((m for m in reversed(chain) if isinstance(m, Member)
                   and m.key_start == at.finding.start), None)
    obj = member.parent if member is not None else None
    if obj is None:
        return []
    spans = _member_spans(obj)
    index = spans.index((member.key_start, member.end))
    return [Fix(f"Delete the ignored '{member.key}'", at.finding, [_remove(spans, index)],
                preferred=True)]


_HANDLERS = {
    "graph-shape": _graph_shape,
    "identity": _identity,
    "one-trigger": _one_trigger,
    "known-kind": _known_kind,
    "required-payload": _required_payload,
    "edges": _edges,
    "acyclic": _acyclic,
    "retries": _clamp,
    "deadline": _clamp,
    "delivery": _delivery,
    "condition": _condition,
    "note-color": _clamp,
    "field-type": _field_type,
    "json-syntax": _json_syntax,
    "unknown-field": _unknown_field,
    "not-upstream": _not_upstream,
    "path-absent": _path_absent,
    "duplicate-key": _duplicate_key,
    "no-reject": _no_reject,
    "design-name": _design_name,
}
"""Rule code -> its fixes; a test fails when a rule code has none."""

__all__ = ["Fix", "fixes_for", "output_paths"]
