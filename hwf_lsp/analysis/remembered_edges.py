"""The edges `after` completion computed for the last node list, for the next version.

`after` completion on a 5,000-node design needs, per version, the children map
(`graph.children_map`, every node's id and `after`) and the nodes an `after` may name
(`design._after_targets`, every node's id and type): ~8 ms, most of the completion; and
the cycle check, the descendants of the node completed in (~1.3 ms).  Between the
versions a user types, every node but the edited one is the very same object: the parse
of broken text and the keystroke carry-over hand them on (scan_reuse.py, carry_over.py).
The rule, checkable by reading: these answers read nothing of a node but
its `id`, `type` and `after`, in node order, and a parsed value is never changed in
place; so a node list of the same length whose every node is the same object as last
time's at its index, or a dict whose `id`, `type` and `after` equal that one's (strings
as strings, lists of strings item by item, anything else only as the same object), has
last time's answers.  `1 == True`, so equality alone would not do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["RememberedEdges"]

T = TypeVar("T")

EDGE_FIELDS = ("id", "type", "after")
_MISSING = object()


class RememberedEdges:
    """The answers computed for the last node list; shared by threads (swapped as one
    tuple, and an answer computed twice at worst)."""

    __slots__ = ("_last",)

    def __init__(self) -> None:
        self._last: tuple[list, dict[str, Any]] | None = None
        """(the list asked about last, the answers for its edges)."""

    def answer(self, nodes: list, what: str, compute: Callable[[list], T]) -> T:
        """`compute(nodes)`, or the answer it gave for the last node list with the same
        edges (`what` names the computation).  The same list asked again (one completion
        asks three times) is not compared again: a parsed value never changes in place."""
        last = self._last
        if last is not None and (last[0] is nodes or same_edges(last[0], nodes)):
            answers = last[1]
        else:
            answers = {}
        self._last = (nodes, answers)  # the next list shares this one's objects
        found = answers.get(what)
        if found is None:
            found = answers[what] = compute(nodes)
        return found


def same_edges(old: list, new: list) -> bool:
    """Whether every node of `new` has the `id`, `type` and `after` of the one at its
    index in `old` (see the module's rule)."""
    if len(old) != len(new):
        return False
    for before, now in zip(old, new, strict=True):
        if before is not now and not (type(before) is dict and type(now) is dict
                                      and all(_same(before.get(key, _MISSING),
                                                    now.get(key, _MISSING))
                                              for key in EDGE_FIELDS)):
            return False
    return True


def _same(before: Any, now: Any) -> bool:
    if before is now:
        return True
    if type(before) is str and type(now) is str:
        return before == now
    if type(before) is list and type(now) is list and len(before) == len(now):
        return all(x is y or (type(x) is str and type(y) is str and x == y)
                   for x, y in zip(before, now, strict=True))
    return False
