"""Did-you-mean: the editor's and the CLI's addition to a message, never the rulebook's.

The rulebook's defect messages are a contract (`validate_designer_graph`, the Hermes
tools, the store's errors), so a suggestion is appended where people read them: the
findings of `hwf check` and the editor, `hwf run`'s list of defects, and the CLI's "no
such design" errors.  For an `after` entry that names no node, the id suggested is the
one the quick fix offers (`nearest_parent`), so the message and the fix agree.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from ..rules.defects import Defect
from ..rules.graph import usable_id
from ..rules.vocabulary import NOTE

__all__ = ["closest", "did_you_mean", "nearest_parent", "with_suggestions"]

CUTOFF = 0.6
"""How alike (difflib's ratio) a word and a candidate must be to suggest it: the kinds'
hint in the rulebook and the unknown-field warning use the same."""


def closest(word: str, candidates: Iterable[str], cutoff: float = CUTOFF) -> str | None:
    """The candidate most like `word`, if any is alike enough: difflib's
    `get_close_matches(word, candidates, n=1, cutoff)`, ties to the greater name.

    A renamed id leaves its children's `after` entries naming no node, and a design's ids
    are often alike (`step-1`, `step-2`…), so on every such keystroke difflib would compute
    the full ratio of each id.  Its `quick_ratio` bounds that ratio from above, so the ids
    are tried best bound first and the search stops when the bound falls below the best
    ratio found (a tie goes to the greater name, so an equal bound stops the search at
    names below the best): the same answer from a few ratios (measured: 0.7 → 0.2 ms per
    keystroke at 50 ids, the bench's id keystroke)."""
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(word)
    bounded = []
    for candidate in candidates:
        matcher.set_seq1(candidate)
        if matcher.real_quick_ratio() >= cutoff and (bound := matcher.quick_ratio()) >= cutoff:
            bounded.append((bound, candidate))
    bounded.sort(reverse=True)
    best: tuple[float, str] | None = None
    for bound, candidate in bounded:
        if best is not None and (bound, candidate) < best:
            break  # (its ratio, its name) <= (bound, name) < best, and so for every later one
        matcher.set_seq1(candidate)
        found = (matcher.ratio(), candidate)
        if found[0] >= cutoff and (best is None or found > best):
            best = found
    return best[1] if best is not None else None


def did_you_mean(word: str, candidates: Iterable[str], cutoff: float = CUTOFF) -> str:
    """" — did you mean 'x'?" for the closest candidate, or ""."""
    found = closest(word, candidates, cutoff)
    return f" — did you mean '{found}'?" if found is not None else ""


def nearest_parent(entry: str, own_id: str | None, ids_and_kinds: Iterable[tuple[Any, Any]],
                   listed: Iterable[Any]) -> str | None:
    """The id an unknown `after` entry most likely means: a node that can be a parent (not
    this node, not a note) and is not in this `after` list already."""
    taken = {x for x in listed if isinstance(x, str)}
    candidates = [ident for ident, kind in ids_and_kinds
                  if ident and ident != own_id and kind != NOTE and ident not in taken]
    return closest(entry, candidates)


def with_suggestions(defects: list[Defect], value: Any) -> list[Defect]:
    """`defects` with " — did you mean 'x'?" on each `after` entry that names no node but
    looks like one; the list itself when there is nothing to suggest."""
    unknown = [i for i, d in enumerate(defects)
               if d.rule == "edges" and d.field == "after" and d.element is not None]
    if not unknown:
        return defects
    nodes = value["nodes"]  # a node defect exists, so the graph shape held
    ids_and_kinds = [(usable_id(node), node.get("type")) for node in nodes
                     if isinstance(node, dict)]
    known = {ident for ident, _kind in ids_and_kinds}
    out = list(defects)
    for i in unknown:
        defect = defects[i]
        node = nodes[defect.index]
        after = node["after"]
        entry = after[defect.element]
        if not isinstance(entry, str) or entry in known:
            continue  # not an unknown id: a non-string, itself, a note
        best = nearest_parent(entry, defect.node, ids_and_kinds, after)
        if best is not None:
            out[i] = replace(defect, msg=f"{defect.msg} — did you mean '{best}'?")
    return out
