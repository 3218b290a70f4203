"""Accepting a completion keeps valid JSON valid (issue 16, item 2).

Every item offered at every position of valid designs (both layouts) is applied, with
its additional edits, and the result must parse with json.loads: 100%.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter

import pytest
from support.breaks import LAYOUTS, corpus_designs

from hwf_lsp.analysis.completion_items import complete
from hwf_lsp.jsontext.jsontree import parse

SOAK = os.environ.get("HWF_SOAK") == "1"


def plain(snippet: str) -> str:
    """A snippet's text with each placeholder replaced by its default (choices: the first)."""
    text = re.sub(r"\$\{\d+\|([^,|]*)[^}]*\}", r"\1", snippet)
    text = re.sub(r"\$\{\d+:((?:[^}\\]|\\.)*)\}", r"\1", text)
    text = re.sub(r"\$\d+", "", text)
    return re.sub(r"\\([$}\\])", r"\1", text)


def accept(text: str, item) -> str:
    """The text after accepting `item`: its edit and its additional edits, last first."""
    edits = [(item.start, item.end, plain(item.insert_text) if item.snippet
              else item.insert_text), *item.additional_edits]
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def positions(doc) -> list[int]:
    """Every offset of the text but the middle of long strings (prose offers the same
    nothing at each character): their first and last few characters stay."""
    skipped: set[int] = set()
    stack = [doc.root]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        if node.kind == "string" and node.end - node.start > 12:
            skipped.update(range(node.start + 4, node.end - 4))
        stack.extend(m.value for m in node.members or ())
        stack.extend(node.items or ())
    return [o for o in range(len(doc.text) + 1) if o not in skipped]


def where(text: str, offset: int) -> str:
    """What kind of spot `offset` is, for the report: between or after members/items."""
    before = text[:offset].rstrip()[-1:]
    after = text[offset:].lstrip()[:1]
    return f"{before or '^'}|{after or '$'}"


# (text with the cursor |, label, expected text once accepted)
CASES = [
    ('{"name": "d", "nodes": [{"id": "t", "type": "trigger"}, '
     '{"id": "x", "type": "agent", "prompt": "p", | "after": ["t"]}]}', "retries",
     '{"name": "d", "nodes": [{"id": "t", "type": "trigger"}, '
     '{"id": "x", "type": "agent", "prompt": "p", "retries": 0, "after": ["t"]}]}'),
    ('{"name": "d", "nodes": [{"id": "t", "type": "trigger"}, '
     '{"id": "x", "type": "agent", "prompt": "p" |}]}', "retries",
     '{"name": "d", "nodes": [{"id": "t", "type": "trigger"}, '
     '{"id": "x", "type": "agent", "prompt": "p", "retries": 0}]}'),
    ('{"name": "d", "nodes": [{"id": "t", "type": "trigger"} |]}', "note node",
     '{"name": "d", "nodes": [{"id": "t", "type": "trigger"}, '
     '{"id": "note1", "type": "note", "text": ""}]}'),
    ('{"name": "d", "nodes": [{"id": "t", "type": "trigger"}, | {"id": "a", "type": "note"}]}',
     "note node", '{"name": "d", "nodes": [{"id": "t", "type": "trigger"}, '
     '{"id": "note1", "type": "note", "text": ""}, {"id": "a", "type": "note"}]}'),
    ('{"name": "d", "nodes": [{"id": "t", "type": "trigger"}, {"id": "a", "type": "agent", '
     '"prompt": "p", "after": ["t"]}, {"id": "b", "type": "agent", "prompt": "p", '
     '"after": ["a" |]}]}', "t", '{"name": "d", "nodes": [{"id": "t", "type": "trigger"}, '
     '{"id": "a", "type": "agent", "prompt": "p", "after": ["t"]}, {"id": "b", '
     '"type": "agent", "prompt": "p", "after": ["a", "t"]}]}'),
    ('{"name": "d", "nodes": [{"id": "t", "type": "trigger"}, {"id": "a", "type": "agent", '
     '"prompt": "p", "after": [| "t"]}]}', "t", None),
    ('{"name": "d", "nodes": [{"id": "t", "type": "trigger"}, {"id": "a", "type": | '
     '"prompt": "p"}]}', "agent", '{"name": "d", "nodes": [{"id": "t", "type": "trigger"}, '
     '{"id": "a", "type": "agent", "prompt": "p"}]}'),
    # quoting: a closing quote already typed (auto-closed), none, or no quote at all
    # (a number cannot end before a kept closing quote: the key alone, the value typed next)
    ('{"name": "d", "nodes": [{"id": "t", "type": "trigger"}, {"id": "a", "type": "agent", '
     '"ret|"}]}', "retries", '{"name": "d", "nodes": [{"id": "t", "type": "trigger"}, '
     '{"id": "a", "type": "agent", "retries"}]}'),
    ('{"name": "d", "nodes": [{"id": "t", "type": "trigger"}, {"id": "a", "type": "agent", '
     '"pro|"}]}', "prompt", '{"name": "d", "nodes": [{"id": "t", "type": "trigger"}, '
     '{"id": "a", "type": "agent", "prompt": ""}]}'),
    ('{"name": "d", "nodes": [{"id": "t", "type": "trigger"}, {"id": "a", "type": ag|}]}',
     "agent", '{"name": "d", "nodes": [{"id": "t", "type": "trigger"}, '
     '{"id": "a", "type": "agent"}]}'),
    ('{"name": "d", "nodes": [{"id": "t", "type": "trigger"}, {"id": "a", "type": "ag|}]}',
     "agent", '{"name": "d", "nodes": [{"id": "t", "type": "trigger"}, '
     '{"id": "a", "type": "agent"}]}'),
    ('{"name": "d", "nodes": [{"id": "t", "type": "trigger"}, {"id": "a", "type": "agent" '
     '"ret|\n]}', "retries", '{"name": "d", "nodes": [{"id": "t", "type": "trigger"}, '
     '{"id": "a", "type": "agent", "retries": 0\n]}'),
]


@pytest.mark.parametrize(("source", "label", "expected"), CASES)
def test_accepting_adds_the_separator(source, label, expected):
    offset = source.index("|")
    text = source[:offset] + source[offset + 1:]
    items = complete(parse(text), offset, snippets=True)
    matching = [i for i in items if i.label == label]
    if expected is None:  # "t" is listed already: not offered again
        assert not matching
        return
    assert accept(text, matching[0]) == expected


def test_every_item_at_every_position_keeps_json_valid():
    counts: Counter[str] = Counter()
    spots: Counter[str] = Counter()
    failures = []
    for name, design in corpus_designs().items():
        if name.startswith("generated") and not SOAK:
            continue  # the examples have every shape; the generated ones repeat them
        for layout, render in LAYOUTS.items():
            text = render(design)
            doc = parse(text)
            for offset in positions(doc):
                counts["positions"] += 1
                for snippets in (True, False):
                    items = complete(doc, offset, snippets=snippets)
                    if items and snippets:
                        counts["positions with items"] += 1
                        spots[where(text, offset)] += 1
                    for item in items:
                        counts["items applied"] += 1
                        result = accept(text, item)
                        try:
                            json.loads(result)
                        except ValueError as error:
                            failures.append((name, layout, offset, item.label, str(error)))
                        else:
                            counts["parsed"] += 1
    print(f"\ncompletion edits: {dict(counts)}; spots: {dict(spots.most_common(12))}")
    assert counts["positions with items"] > 1500
    assert not failures, f"{len(failures)} of {counts['items applied']}: {failures[:8]}"
