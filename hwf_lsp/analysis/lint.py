"""Editor-only checks: what the rulebook deliberately does not check.

The canvas accepts these designs, so they are warnings, never errors:
unknown fields (likely typos), a condition reading a node that does not run
before it, a condition path the newest run's output does not have, duplicate
keys (JSON keeps only the last one), and an approval none of whose options is
`reject` (no answer can stop its branch).  One is an error: a `name` the design
store and `hwf run` refuse (`names.check_design_name`), so `hwf check` and the
editor refuse what running refuses.  Rule codes come from vocabulary.EDITOR_RULES.
"""

from __future__ import annotations

from typing import Any

from ..jsontext.jsontree import JsonNode, Member, ParsedDocument
from ..rules.conditions import ConditionError, parse_condition, resolve_path
from ..rules.graph import runs_after, usable_id
from ..rules.names import check_design_name
from ..rules.numbers import whole_number
from ..rules.run_facts import approval_options
from ..rules.vocabulary import (
    ALL_FIELD_NAMES,
    APPROVAL,
    CONDITION,
    KINDS,
    MAX_NODES,
    NOTE,
    TRIGGER,
    fields_for,
)
from .locate import Finding, Related, identity_span, node_object, string_span
from .suggestions import did_you_mean

__all__ = ["lint", "sorted_warnings", "condition_warnings", "duplicate_key_warnings"]

WARNING, ERROR = "warning", "error"
REJECT = "reject"
"""The one approval answer that prunes its branch (runner: `_apply_answer`)."""
_FIELD_NAMES: dict[str, frozenset[str]] = {
    kind: frozenset(f.name for f in fields_for(kind)) for kind in KINDS
}


def lint(doc: ParsedDocument, value: Any = None, *, run_outputs: dict | None = None,
         have_value: bool = False) -> list[Finding]:
    """Every editor warning for `doc`; `value` is doc.to_python() when the caller has it."""
    if not have_value:
        value = doc.to_python()
    found = duplicate_key_warnings(doc) + design_name_errors(doc, value)
    nodes = value.get("nodes") if isinstance(value, dict) else None
    if isinstance(nodes, list):
        for index, node in enumerate(nodes):
            found.extend(_own_warnings(doc, index, node))
        found.extend(condition_warnings(doc, nodes, run_outputs))
    return found


def design_name_errors(doc: ParsedDocument, value: Any) -> list[Finding]:
    """An error at `name` when it is a name the store and `hwf run` refuse (an empty or
    missing name is fine: the run is filed under the file's stem)."""
    name = value.get("name") if isinstance(value, dict) else None
    if not isinstance(name, str) or not name:
        return []
    try:
        check_design_name(name)
    except ValueError as exc:
        at = doc.node_at_path(("name",))
        start, end = (at.start, at.end) if at is not None else (0, min(1, len(doc.text)))
        return [Finding("design-name", ERROR, f"{exc}; hwf run and the design store "
                        "refuse it", start, end, field="name")]
    return []


def _own_warnings(doc: ParsedDocument, index: int, node: Any) -> list[Finding]:
    if not isinstance(node, dict):
        return []
    return _unknown_fields_of(doc, index, node) + _no_reject_of(doc, index, node)


def sorted_warnings(doc: ParsedDocument, value: Any, run_outputs: dict | None
                    ) -> list[Finding]:
    """`lint`'s warnings by position; never raises: warnings are advice, and the errors
    they are published with must not be lost over them."""
    try:
        warnings = lint(doc, value, run_outputs=run_outputs, have_value=True)
    except Exception:  # noqa: BLE001
        return []
    warnings.sort(key=lambda w: (w.start, w.end))
    return warnings


def duplicate_key_warnings(doc: ParsedDocument) -> list[Finding]:
    """The losing occurrences of every repeated key, in any object: marked as text that
    counts for nothing, pointing at the one that counts."""
    found = []
    for member in doc.duplicate_keys():
        winner = _winner(member)
        related = (Related(winner.key_start, winner.key_end, "the one that counts"),) \
            if winner is not None else ()
        found.append(Finding("duplicate-key", WARNING,
                             f"Duplicate key '{member.key}'; only the last one counts",
                             member.key_start, member.key_end, related=related,
                             unnecessary=True))
    return found


def _winner(member: Member) -> Member | None:
    obj = member.parent
    for other in reversed(obj.members or ()) if obj is not None else ():
        if other.key == member.key:
            return other
    return None


def _unknown_fields_of(doc: ParsedDocument, index: int, node: dict) -> list[Finding]:
    """Keys no field of the node's kind defines (all kinds' fields for an unknown kind)."""
    kind = node.get("type")
    known_kind = isinstance(kind, str) and kind in KINDS
    names = _FIELD_NAMES[kind] if known_kind else ALL_FIELD_NAMES
    if node.keys() <= names:
        return []  # the common case, decided in C
    obj = node_object(doc, index)
    if obj is None or obj.members is None:
        return []
    where = f"{kind} node" if known_kind else "node"
    ident = usable_id(node)
    candidates = sorted(names)
    strangers = {key for key in node if key not in names}
    return [Finding("unknown-field", WARNING,
                    f"Unknown field '{member.key}' on {where}"
                    f"{did_you_mean(member.key, candidates)}",
                    member.key_start, member.key_end, ident, member.key, index)
            for member in obj.members if member.key in strangers]


def _last_value(obj: JsonNode | None, key: str) -> JsonNode | None:
    """The value of `obj`'s member `key` that counts (the last one), if any."""
    if obj is None or obj.members is None:
        return None
    for member in reversed(obj.members):
        if member.key == key:
            return member.value
    return None


def _expression_node(obj: JsonNode | None) -> JsonNode | None:
    value = _last_value(obj, "expression")
    return value if value is not None and value.kind == "string" else None


def _no_reject_of(doc: ParsedDocument, index: int, node: dict) -> list[Finding]:
    """no-reject: an approval whose own options leave out `reject` can never stop its
    branch (only `reject` prunes, docs/decisions.md), and its deadline's `reject` answer
    (on_timeout other than escalate) is not one of its options."""
    if node.get("type") != APPROVAL or "options" not in node:
        return []
    options = node["options"]
    if approval_options(options) != options or REJECT in options:
        return []  # the default options (with reject), or a rulebook defect
    obj = node_object(doc, index)
    listed = _last_value(obj, "options")
    if listed is None:
        return []
    ident = usable_id(node)
    shown = ", ".join(f"'{o}'" for o in options)
    found = [Finding(
        "no-reject", WARNING,
        f"No option is '{REJECT}', so no answer can stop this branch: only '{REJECT}' "
        "skips the steps after an approval",
        listed.start, listed.end, ident, "options", index)]
    if not whole_number(node.get("timeout_minutes")) or node.get("on_timeout") == "escalate":
        return found
    field = "on_timeout" if "on_timeout" in node else "timeout_minutes"
    deadline = _last_value(obj, field)
    if deadline is not None:
        found.append(Finding(
            "no-reject", WARNING,
            f"Past timeout_minutes the run answers '{REJECT}', which is not one of the "
            f"options ({shown}); add '{REJECT}' to options, or use on_timeout 'escalate'",
            deadline.start, deadline.end, ident, field, index))
    return found


class _Parents:
    """graph.parent_map's answers for the few ids a condition's upstream walk visits, read
    from each id's `after` lists on demand instead of built for every node first."""

    __slots__ = ("afters", "known")

    def __init__(self, afters: dict[str, list[list]], known: dict[str, Any]) -> None:
        self.afters = afters
        self.known = known

    def get(self, ident: str, default: Any = ()) -> Any:
        lists = self.afters.get(ident)
        if not lists:
            return default
        known = self.known
        return [p for after in lists for p in after if isinstance(p, str) and p in known]


def graph_view(nodes: list) -> tuple[dict[str, Any], _Parents]:
    """The type of each id's first node, and the parents of each id on demand: one pass."""
    kind_of: dict[str, Any] = {}
    afters: dict[str, list[list]] = {}
    for other in nodes:
        other_id = usable_id(other)
        if other_id is None:
            continue
        if other_id not in kind_of:
            kind_of[other_id] = other.get("type")
        after = other.get("after")
        if isinstance(after, list) and after:
            afters.setdefault(other_id, []).append(after)
    return kind_of, _Parents(afters, kind_of)


def _first_index(nodes: list, ident: str) -> int:
    return next(i for i, node in enumerate(nodes) if usable_id(node) == ident)


def condition_warnings(doc: ParsedDocument, nodes: list, run_outputs: dict | None = None
                       ) -> list[Finding]:
    """not-upstream and path-absent warnings for every condition node."""
    found: list[Finding] = []
    if len(nodes) > MAX_NODES:
        return found  # a graph-shape error already; ancestors per condition would be O(n^2)
    conditions = [(index, node) for index, node in enumerate(nodes)
                  if isinstance(node, dict) and node.get("type") == CONDITION]
    if not conditions:
        return found
    kind_of, parents = graph_view(nodes)
    for index, node in conditions:
        text = node.get("expression")
        if not isinstance(text, str):
            continue
        try:
            condition = parse_condition(text)
        except ConditionError:
            continue  # the rulebook reports it
        target = condition.node
        ident = usable_id(node)
        if target not in kind_of or kind_of[target] in (NOTE, TRIGGER):
            continue  # no such node, or one without output: the rulebook reports it
        if ident is None:
            continue  # without a usable id it has no place in the graph (a rulebook defect)
        upstream = runs_after(parents, ident, target)
        absent = False
        if upstream and isinstance(run_outputs, dict) and target in run_outputs:
            absent = not resolve_path(run_outputs[target], condition.path)[0]
        if upstream and not absent:
            continue  # nothing to say: the tree (and its positions) is not needed
        literal = _expression_node(node_object(doc, index))
        if literal is None:
            continue
        if not upstream:
            start, end = string_span(doc, literal, condition.node_span)
            found.append(Finding(
                "not-upstream", WARNING,
                f"out.{target} is read here, but '{target}' does not run before this node "
                f"(add it to after, directly or through a parent)",
                start, end, ident, "expression", index,
                (Related(*identity_span(doc, _first_index(nodes, target)),
                         f"{target!r}, the node read"),),
            ))
            continue
        start, end = string_span(doc, literal, condition.path_span)
        shown = ".".join(str(s) for s in condition.path)
        found.append(Finding(
            "path-absent", WARNING,
            f"The newest run's output of '{target}' has no path '{shown}'; "
            "this condition would be false",
            start, end, ident, "expression", index,
        ))
    return found
