"""The recovery corpus: designs in two layouts, and one syntax error injected into a node.

Layouts: pretty-printed (`json.dumps(indent=2)`, one member per line) and one node per
line.  Break kinds (issue 16): an unclosed string, a stray or missing brace or bracket, a
missing comma or colon, a stray word.  Each break is one edit at one offset, so an offset
of the broken text maps back to the intact one (`Break.original`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from hwf_lsp.jsontext.jsontree import JsonNode, parse

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.gen import design_with_nodes  # noqa: E402


def pretty(design: dict) -> str:
    return json.dumps(design, indent=2, ensure_ascii=False) + "\n"


def one_node_per_line(design: dict) -> str:
    nodes = ",\n".join("    " + json.dumps(n, ensure_ascii=False) for n in design["nodes"])
    head = {k: v for k, v in design.items() if k != "nodes"}
    members = [f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in head.items()]
    return "{\n" + ",\n".join([*members, '  "nodes": [\n' + nodes + "\n  ]"]) + "\n}\n"


LAYOUTS: dict[str, Callable[[dict], str]] = {"pretty": pretty, "node-per-line": one_node_per_line}


def corpus_designs() -> dict[str, dict]:
    """Every example design with nodes, and a generated one (defects of every rule family)."""
    designs = {}
    for path in sorted([*REPO.glob("examples/*.hwf.json"),
                        *REPO.glob("examples/workflow-designs/*.json")]):
        value = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(value, dict) and value.get("nodes"):
            designs[path.name] = value
    designs["generated-50"] = json.loads(design_with_nodes(50).text)
    designs["generated-500"] = json.loads(design_with_nodes(500).text)
    return designs


@dataclass(frozen=True)
class Break:
    kind: str
    at: int
    """Where the edit is made in the intact text."""
    inserted: str = ""
    deleted: int = 0

    def apply(self, text: str) -> str:
        return text[:self.at] + self.inserted + text[self.at + self.deleted:]

    def moved(self, offset: int) -> int:
        """The broken text's offset of the intact text's `offset` (outside the edit)."""
        if offset <= self.at:
            return offset
        return offset + len(self.inserted) - self.deleted

    def original(self, offset: int) -> int:
        """The intact text's offset of the broken text's `offset` (outside the edit)."""
        if offset <= self.at:
            return offset
        return offset - len(self.inserted) + self.deleted


def member_value(obj: JsonNode, key: str) -> JsonNode | None:
    for member in obj.members or ():
        if member.key == key:
            return member.value
    return None


def _comma_after(text: str, offset: int) -> int | None:
    rest = len(text[offset:]) - len(text[offset:].lstrip())
    return offset + rest if text[offset + rest: offset + rest + 1] == "," else None


def breaks_of(text: str, obj: JsonNode) -> Iterator[Break]:
    """Every break kind that applies to the node object `obj` of `text`."""
    ident = member_value(obj, "id")
    kind = member_value(obj, "type")
    after = member_value(obj, "after")
    type_member = next((m for m in obj.members or () if m.key == "type"), None)
    if kind is not None and kind.kind == "string":
        yield Break("unclosed-string", kind.end - 1, deleted=1)
    yield Break("stray-brace-after-node", obj.end, "}")
    yield Break("missing-closing-brace", obj.end - 1, deleted=1)
    yield Break("missing-opening-brace", obj.start, deleted=1)
    if ident is not None:
        yield Break("stray-bracket", ident.end, "]")
        yield Break("stray-brace-in-node", ident.end, "}")
        comma = _comma_after(text, ident.end)
        if comma is not None:
            yield Break("missing-comma", comma, deleted=1)
            yield Break("stray-word", comma + 1, " oops")
    if after is not None and after.kind == "array" and after.items:
        yield Break("missing-bracket", after.end - 1, deleted=1)
    if type_member is not None and type_member.colon is not None:
        yield Break("missing-colon", type_member.colon, deleted=1)


def node_objects(text: str) -> list[JsonNode]:
    nodes = parse(text).node_at_path(("nodes",))
    return list(nodes.items or ()) if nodes is not None else []
