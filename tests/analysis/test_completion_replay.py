"""Ranking, measured (issues 29, 43): replay writing each example design from an empty file
and count how often the item the author wanted is the first one offered (target ≥ 85 %).

At every spot where an author of the example completes — a new node, each field name,
the kind, an enum value, each id in `after`, the node a condition reads, its operator —
the text so far (everything written before, brackets closed) is completed and the list
sorted as clients sort it (sortText, else the label).  Free text (ids, prompts, titles,
numbers) is typed, not completed, and is not counted.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from hwf_lsp.analysis.completion_items import complete
from hwf_lsp.jsontext.jsontree import parse
from hwf_lsp.rules.vocabulary import KINDS, field_named

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
TARGET = 0.85
CURSOR = "‸"
"""Where the cursor is in a replayed text (a character no example uses)."""


def example_designs() -> dict[str, dict]:
    out = {}
    for path in sorted([*EXAMPLES.glob("*.hwf.json"), *EXAMPLES.glob("workflow-designs/*.json")]):
        try:
            design = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            continue
        if "broken" not in path.name and isinstance(design.get("nodes"), list):
            out[path.name] = design
    return out


def member(key: str, value) -> str:
    return f"{json.dumps(key)}: {json.dumps(value)}"


def spots(design: dict):
    """(text with the CURSOR, wanted label) for each completion of the replay."""
    done: list[str] = []
    for node in design["nodes"]:
        head = '{"name": ' + json.dumps(design.get("name", "d")) + ', "nodes": [\n' + \
            "".join(d + ",\n" for d in done)
        tail = "\n]}"
        yield head + "‸" + tail, f"{node.get('type')} node"
        written: list[str] = []
        for key, value in node.items():
            body = "{" + ", ".join(written) + (", " if written else "")
            yield head + body + "‸}" + tail, key
            kind = node.get("type")
            spec = field_named(kind, key) if kind in KINDS else None
            if key == "type" or spec is not None and spec.enum:
                yield head + body + f'"{key}": "‸"}}' + tail, value
            elif key == "after":
                for i, ident in enumerate(value):
                    listed = "".join(json.dumps(v) + ", " for v in value[:i])
                    yield head + body + f'"{key}": [{listed}"‸"]}}' + tail, ident
            elif key == "expression":
                match = re.match(r"out\.([A-Za-z0-9_-]+)\.(\S+) (\S+) ", value)
                if match:
                    yield head + body + f'"{key}": "out.‸"}}' + tail, match.group(1)
                    yield head + body + f'"{key}": "out.{match.group(1)}.{match.group(2)} ‸"}}' \
                        + tail, match.group(3)
            written.append(member(key, value))
        done.append("{" + ", ".join(written) + "}")


def first_label(text_with_cursor: str) -> str | None:
    offset = text_with_cursor.index(CURSOR)
    text = text_with_cursor[:offset] + text_with_cursor[offset + 1:]
    items = complete(parse(text), offset, snippets=False)
    ordered = sorted(items, key=lambda i: (i.sort_text or i.label, i.label))
    return ordered[0].label if ordered else None


def test_the_wanted_item_is_first_at_least_85_percent_of_the_time():
    hits, misses = 0, []
    for name, design in example_designs().items():
        for text, wanted in spots(design):
            got = first_label(text)
            if got == wanted:
                hits += 1
            else:
                misses.append((name, wanted, got))
    total = hits + len(misses)
    rate = hits / total
    print(f"\nreplay: the wanted item first {hits} of {total} ({rate:.0%})")
    for miss in misses:
        print("  miss:", *miss)
    assert total >= 16 and rate >= TARGET, misses
