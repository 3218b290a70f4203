"""Seeded design documents for the benchmark, and the edits made to them.

Two families, both written as `*.hwf.json` so every server under test serves them:
- by size: 50 nodes whose agent prompts are padded until the file reaches ~10 KB ... 5 MB;
- by node count: 50, 500, 5000 nodes with short prompts (over 50 breaks the rulebook's
  graph-shape limit, and the server must still answer fast).
Every document carries a few defects (bad retries, deadline, delivery target, enum, condition)
that both the rulebook and a JSON Schema can see, so "diagnostics arrived" can be verified.
All text is ASCII, so offsets, UTF-16 columns and bytes coincide.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path

WORDS = (
    "summarise the merged pull requests group features fixes breaking changes release notes "
    "review score draft publish channel approve reject context output agent step verdict issue "
    "team weekly digest nightly report customer ticket triage label priority owner deadline"
).split()

SIZES: dict[str, int] = {"10k": 10_000, "100k": 100_000, "1m": 1_000_000, "5m": 5_000_000}
NODE_COUNTS: tuple[int, ...] = (50, 500, 5000)
ID_VALUE = '"id": "n'
"""How every node id value starts (ids are `n` and five digits)."""


@dataclass(frozen=True, slots=True)
class Doc:
    """One generated design and the spots the benchmark edits, hovers and completes at."""

    name: str
    text: str
    nodes: int
    edit_offset: int
    """A character inside an agent prompt in the middle of the document (free text: the
    server may carry its findings over)."""
    id_edit_offset: int
    """A digit of the middle node's id value: changing it breaks every reference to that node,
    so the server must check the design again."""
    break_edit_offset: int
    """The comma after the middle node's id value: a letter there breaks the JSON
    (`"n00025"x`), as the first letter of a key typed before the comma would."""
    hover_offset: int
    """Inside the key `prompt` of a middle agent."""
    completion_offset: int
    """Just after the opening quote of a middle node's `type` value."""

    def offset_of(self, edit: str) -> int:
        """Where the one-character edit named `edit` ("prompt", "id" or "break") goes."""
        return {"prompt": self.edit_offset, "id": self.id_edit_offset,
                "break": self.break_edit_offset}[edit]

    @property
    def edited_ids(self) -> tuple[str, ...]:
        """The id the id edit changes, as generated and as the edit leaves it (x or y)."""
        start = self.text.rfind('"', 0, self.id_edit_offset) + 1
        original = self.text[start:self.text.index('"', self.id_edit_offset)]
        at = self.id_edit_offset - start
        return (original, *(original[:at] + c + original[at + 1:] for c in "xy"))

    @property
    def size(self) -> int:
        return len(self.text.encode("utf-8"))

    @property
    def filename(self) -> str:
        return f"{self.name}.hwf.json"


def _words(rng: random.Random, length: int) -> str:
    """ASCII prose of exactly `length` characters."""
    parts: list[str] = []
    total = 0
    while total < length:
        word = rng.choice(WORDS)
        parts.append(word)
        total += len(word) + 1
    return " ".join(parts)[:length].rstrip().ljust(length, ".")


def _node(index: int, count: int, rng: random.Random, prompt_length: int) -> dict[str, object]:
    """Node `index` of `count`: a trigger first, then a repeating mix of kinds with defects."""
    node_id = f"n{index:05d}"
    if index == 0:
        return {"id": node_id, "type": "trigger", "title": "Start"}
    after = [f"n{index - 1:05d}"]
    if index > 2 and index % 3 == 0:
        after.append(f"n{index - 3:05d}")
    slot = index % 10
    node: dict[str, object] = {"id": node_id, "title": f"Step {index}", "after": after}
    if slot == 4:
        source = "ghost" if index % 30 == 14 else f"n{index - 1:05d}"  # defect: no such node
        node.update(type="condition", expression=f"out.{source}.score >= {index % 10}")
    elif slot == 7:
        node.update(type="approval", question="Publish this?", options=["approve", "reject"],
                    timeout_minutes=60, on_timeout="later" if index % 30 == 17 else "escalate")
    elif slot == 9:
        node.update(type="output", deliver="channel",
                    target="no-colon-target" if index % 30 == 19 else "slack:#reviews")
    else:
        node.update(type="agent", prompt=_words(rng, prompt_length), retries=index % 4,
                    timeout_minutes=15)
        if index % 25 == 5:
            node["retries"] = 7  # defect: retries outside 0-3
        if index % 25 == 13:
            node["timeout_minutes"] = 0  # defect: deadline below 1
    return node


def _design(name: str, count: int, prompt_length: int, seed: int) -> str:
    rng = random.Random(seed)
    nodes = [_node(i, count, rng, prompt_length) for i in range(count)]
    return json.dumps({"name": name, "nodes": nodes}, indent=2) + "\n"


def _anchors(name: str, text: str, count: int) -> Doc:
    middle = len(text) // 2
    prompt_key = text.find('"prompt": "', middle)
    if prompt_key < 0:
        prompt_key = text.find('"prompt": "')
    type_value = text.find('"type": "', middle)
    if type_value < 0:
        type_value = text.find('"type": "')
    id_value = text.find(ID_VALUE, middle)
    if id_value < 0:
        id_value = text.find(ID_VALUE)
    return Doc(
        name=name,
        text=text,
        nodes=count,
        edit_offset=prompt_key + len('"prompt": "') + 3,
        id_edit_offset=id_value + len(ID_VALUE) + 2,
        break_edit_offset=text.index('",', id_value + len(ID_VALUE)) + 1,
        hover_offset=prompt_key + 3,
        completion_offset=type_value + len('"type": "'),
    )


def design_of_size(label: str, target_bytes: int, seed: int = 7) -> Doc:
    """50 nodes with prompts padded so the document is about `target_bytes` long."""
    name = f"size-{label}"
    count = 50
    bare = _design(name, count, 1, seed)
    agents = bare.count('"type": "agent"')
    prompt_length = max(8, (target_bytes - len(bare)) // max(agents, 1))
    text = _design(name, count, prompt_length, seed)
    return _anchors(name, text, count)


def design_with_nodes(count: int, seed: int = 11) -> Doc:
    """`count` nodes with short prompts; above 50 the graph-shape rule is broken."""
    name = f"nodes-{count}"
    return _anchors(name, _design(name, count, 60, seed), count)


def position_of(text: str, offset: int) -> dict[str, int]:
    """LSP position of a character offset (ASCII text: UTF-16 units equal characters)."""
    line = text.count("\n", 0, offset)
    line_start = text.rfind("\n", 0, offset) + 1
    return {"line": line, "character": offset - line_start}


def replace_char(text: str, offset: int, char: str) -> str:
    return text[:offset] + char + text[offset + 1 :]


def insert_char(text: str, offset: int, char: str) -> str:
    return text[:offset] + char + text[offset:]


def all_docs(smoke: bool = False) -> list[Doc]:
    """The documents of one run: every size and node count, or the smallest ones for smoke."""
    if smoke:
        return [design_of_size("10k", SIZES["10k"]), design_with_nodes(50)]
    return [design_of_size(label, size) for label, size in SIZES.items()] + [
        design_with_nodes(count) for count in NODE_COUNTS
    ]


def write_docs(docs: list[Doc], directory: Path) -> dict[str, Path]:
    """Write each document under `directory`; returns name -> path."""
    directory.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    for doc in docs:
        path = directory / doc.filename
        path.write_text(doc.text, encoding="utf-8")
        paths[doc.name] = path
    return paths


if __name__ == "__main__":
    for generated in all_docs():
        print(f"{generated.filename:28} {generated.size:>10} bytes {generated.nodes:>6} nodes")
