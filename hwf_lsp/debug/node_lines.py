"""Which node of a design holds which lines of its file (for breakpoints and the stack).

The design's text is parsed by the project's tolerant JSON parser (`jsontext`) and read
through the editor's design model (`analysis.design`), so a line maps to the node the
editor shows there, even in a half-edited file.
"""

from __future__ import annotations

from dataclasses import dataclass

from hwf_lsp.analysis.design import design_of
from hwf_lsp.jsontext.jsontree import parse
from hwf_lsp.jsontext.positions import LineIndex


@dataclass(frozen=True)
class NodeLines:
    """One node's object in the file: lines 0-based, both ends included."""

    id: str | None
    kind: str | None
    first: int
    last: int
    at: int
    """The line the stack shows for it: its `id` member's, else its object's first."""


def node_lines(text: str) -> list[NodeLines]:
    """Every node whose object is in the text, in file order."""
    doc = parse(text)
    lines = LineIndex(text)
    found: list[NodeLines] = []
    for info in design_of(doc).infos:
        if info.obj is None:
            continue
        first = lines.position(info.obj.start)[0]
        last = lines.position(max(info.obj.start, info.obj.end - 1))[0]
        id_member = info.member("id")
        at = lines.position(id_member.key_start)[0] if id_member is not None else first
        found.append(NodeLines(info.id, info.kind, first, last, at))
    return found


def node_at_line(nodes: list[NodeLines], line: int) -> NodeLines | None:
    """The node whose object holds `line` (0-based): one that starts on it first (two
    compact nodes may share the line where one ends and the next begins)."""
    holding = [n for n in nodes if n.first <= line <= n.last]
    starting = [n for n in holding if n.first == line]
    return (starting or holding or [None])[0]


def line_of(nodes: list[NodeLines], node_id: str) -> int | None:
    """The line (0-based) the stack shows for `node_id` (its `id` member's)."""
    return next((n.at for n in nodes if n.id == node_id), None)
