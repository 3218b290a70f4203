"""Ranking by what the design needs (issue 43): at each spot, the item a node cannot do
without (or the kind the design's shape asks for) is offered first."""

from __future__ import annotations

import pytest

from hwf_lsp.analysis.completion_items import complete
from hwf_lsp.jsontext.jsontree import parse

T = '{"id": "t", "type": "trigger"}'
A = '{"id": "a", "type": "agent", "prompt": "Draft.", "after": ["t"]}'
R = '{"id": "r", "type": "agent", "prompt": "Review.", "after": ["a"]}'
C = '{"id": "c", "type": "condition", "expression": "out.r.ok == true", "after": ["r"]}'
CASES = [
    # (name, the design's nodes with the cursor `‸`, the label wanted first)
    ("target once deliver is channel", [T, A, '{"id": "o", "type": "output", '
                                        '"deliver": "channel", "‸"}'], "target"),
    ("a new node's title first, as the node above starts with one",
     [T, '{"id": "a", "type": "agent", "title": "Draft", "prompt": "Draft.", "after": ["t"]}',
      '{"id": "o", "type": "output", "‸"}'], "title"),
    ("else what it cannot run without", [T, A, '{"id": "o", "type": "output", "‸"}'],
     "deliver"),
    ("a new note's text, never after", [T, A, '{"id": "n", "type": "note", "‸"}'], "text"),
    ("the prompt before after", [T, '{"id": "a", "type": "agent", "title": "x", "‸"}'],
     "prompt"),
    ("an approval's options after its question",
     [T, A, '{"id": "q", "type": "approval", "question": "Ship?", "‸"}'], "options"),
    ("on_timeout once there is a deadline",
     [T, A, '{"id": "q", "type": "approval", "question": "Ship?", "timeout_minutes": 60, '
      '"options": ["approve", "reject"], "‸"}'], "on_timeout"),
    ("a condition after a second agent", [T, A, R, "‸"], "condition node"),
    ("an agent after the first agent", [T, A, "‸"], "agent node"),
    ("a second output below the note that follows the first",
     [T, A, '{"id": "o", "type": "output", "deliver": "chat", "after": ["a"]}',
      '{"id": "n", "type": "note", "text": "Posts to chat."}', "‸"], "output node"),
    ("a note right after an output (the examples end so)",
     [T, A, '{"id": "o", "type": "output", "deliver": "chat", "after": ["a"]}', "‸"],
     "note node"),
    ("never a second note first, right after a note",
     [T, A, '{"id": "n", "type": "note", "text": "Drafts."}', "‸"], "agent node"),
    ("an output delivers content, not a condition's verdict",
     [T, A, R, C, '{"id": "o", "type": "output", "deliver": "notification", '
      '"after": ["c", "‸"]}'], "r"),
]


def first_label(nodes: list[str]) -> str | None:
    text = '{"name": "d", "nodes": [\n  ' + ",\n  ".join(nodes) + "\n]}"
    offset = text.index("‸")
    text = text.replace("‸", "")
    items = complete(parse(text), offset, snippets=False)
    ordered = sorted(items, key=lambda i: (i.sort_text or i.label, i.label))
    return ordered[0].label if ordered else None


@pytest.mark.parametrize(("name", "nodes", "wanted"), CASES, ids=[c[0] for c in CASES])
def test_what_the_node_needs_comes_first(name: str, nodes: list[str], wanted: str) -> None:
    assert first_label(nodes) == wanted
