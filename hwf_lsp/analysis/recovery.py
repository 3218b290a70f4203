"""What a syntax error costs: the node it is in, never the rest of the design.

The tolerant parser (`jsontree`, its re-synchronisation rules in `resync`) recovers the
nodes around a syntax error; the rulebook then judges the recovered value exactly as it
judges valid text (`collect_defects`, the one rulebook), every node as far as it parsed,
so a broken node's id, type and `after` still count for the others.

A node whose text holds a syntax error is *broken*.  It is judged as far as it parsed
(its findings are the rulebook's on what parsed of it, next to its syntax error).  On the
other nodes, the findings that exist only because of what a broken node lost are left
out: "no trigger" when a broken node's type did not parse (it may be the trigger), and a
reference to an id no node has when a broken node's id did not parse (it may be that
node's id).  A broken node with no member yet (a `{` just typed) lost nothing: nothing
of it was written.  Nothing is added and nothing is judged here: a filter over the rulebook's
output.

A finding placed exactly on a syntax error's text (a bare word where a value belongs)
would name a value the text does not hold ("got null" where the text says `x`): left out,
the syntax error says what is there.
"""

from __future__ import annotations

from bisect import bisect_right

from ..jsontext.jsontree import JsonNode, ParsedDocument
from ..rules.graph import usable_id
from .locate import Finding

__all__ = ["broken_nodes", "spare_the_rest"]

_REFERENCES = frozenset({"edges", "condition"})
"""Rules whose finding may name another node's id."""


def broken_nodes(doc: ParsedDocument) -> dict[int, JsonNode]:
    """nodes[i] -> its object, for each node whose text holds a syntax error."""
    nodes = doc.node_at_path(("nodes",))
    items = nodes.items if nodes is not None else None
    if not items or not doc.errors:
        return {}
    broken: dict[int, JsonNode] = {}
    for issue in doc.errors:
        index = bisect_right(items, issue.start, key=lambda n: n.start) - 1
        if index < 0:
            continue
        item = items[index]
        inside = issue.start < item.end or not item.closed and issue.start == item.end
        if inside and item.kind == "object":
            broken[index] = item
    return broken


def _parsed(obj: JsonNode, key: str) -> bool:
    """Whether the node's `key` parsed to a whole string (it may be any string)."""
    for member in reversed(obj.members or ()):
        if member.key == key:
            value = member.value
            return value is not None and value.kind == "string" and value.closed
    return False


def spare_the_rest(doc: ParsedDocument, findings: list[Finding]) -> list[Finding]:
    """`findings` of broken text less those a syntax error makes unreliable (module doc)."""
    junk = {(issue.start, issue.end) for issue in doc.errors}
    findings = [f for f in findings if f.rule == "json-syntax" or (f.start, f.end) not in junk]
    broken = [obj for obj in broken_nodes(doc).values() if obj.members]
    kind_lost = not all(_parsed(obj, "type") for obj in broken)
    id_lost = not all(_parsed(obj, "id") for obj in broken)
    if not kind_lost and not id_lost:
        return findings
    ids = _ids(doc) if id_lost else set()
    return [f for f in findings
            if not (kind_lost and f.rule == "one-trigger" and f.index is None)
            and not (id_lost and f.rule in _REFERENCES and _names_no_node(doc, ids, f))]


def _ids(doc: ParsedDocument) -> set[str | None]:
    """The usable ids of the recovered nodes."""
    value = doc.to_python()
    nodes = value.get("nodes") if isinstance(value, dict) else None
    return {usable_id(node) for node in nodes} if isinstance(nodes, list) else set()


def _names_no_node(doc: ParsedDocument, ids: set[str | None], finding: Finding) -> bool:
    """Whether the finding's text is a name no node has (an `after` entry, `out.<id>`)."""
    text = doc.text
    name = text[finding.start:finding.end]
    if finding.rule == "condition":
        if text[max(0, finding.start - 4):finding.start] != "out.":
            return False  # not the node a condition reads
    elif name.startswith('"') and name.endswith('"') and len(name) >= 2:
        name = name[1:-1]
    return bool(name) and name not in ids
