"""Issue 48's sweep: one character typed at the start or end of a node's line.

For each node of a design, each of its lines that holds its `{` or its `}` (one line for a
node written on one line), and each position on that line (column 0, the first non-blank,
the end), each of `" { } [ ] ,` is inserted once.  The findings of the broken text are
compared with those of the intact text, leaving out the syntax errors and the findings
placed on the node whose line was typed on (its own findings may change: its text is
broken).  `lost`: an intact finding of another node (or of the design) that is missing;
`invented`: a finding of the broken text that the intact text does not have, placed
anywhere but on that node (a phantom node's "must be an object" counts here).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from hwf_lsp.analysis.findings import check_text
from support.breaks import Break, node_objects

CHARACTERS = '"{}[],'


@dataclass
class SweepResult:
    counts: Counter = field(default_factory=Counter)
    failures: list[tuple] = field(default_factory=list)


def _line_bounds(text: str, offset: int) -> tuple[int, int]:
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    return start, len(text) if end < 0 else end


def insertion_points(text: str) -> Iterator[tuple[int, int, int, str]]:
    """(node index, span start, span end, where) and the offset: every typed position."""
    for index, obj in enumerate(node_objects(text)):
        lines = {_line_bounds(text, obj.start), _line_bounds(text, obj.end - 1)}
        points = set()
        for start, end in lines:
            blank = len(text[start:end]) - len(text[start:end].lstrip())
            points |= {start, start + blank, end}
        for at in sorted(points):
            yield index, min(obj.start, *(s for s, _ in lines)), max(obj.end, *(e for _, e in lines)), at


def _elsewhere(findings, span, index, mapping=None) -> Counter:
    start, end = span
    out: Counter = Counter()
    for f in findings:
        if f.rule == "json-syntax" or f.index == index:
            continue
        s, e = (mapping(f.start), mapping(f.end)) if mapping else (f.start, f.end)
        if start <= s <= end:
            continue
        out[(f.rule, f.severity, f.msg, f.node, f.field, f.index, s, e)] += 1
    return out


def sweep(text: str) -> SweepResult:
    """Every insertion of `CHARACTERS` at every node line's start and end in `text`."""
    result = SweepResult()
    _, intact = check_text(text)
    for index, start, end, at in insertion_points(text):
        before = _elsewhere(intact, (start, end), index)
        for char in CHARACTERS:
            brk = Break(f"insert {char!r}", at, char)
            broken = brk.apply(text)
            _, found = check_text(broken)
            after = _elsewhere(found, (start, end), index, brk.original)
            lost, invented = before - after, after - before
            result.counts["tried"] += 1
            result.counts["lost"] += sum(lost.values())
            result.counts["invented"] += sum(invented.values())
            if lost or invented:
                result.failures.append((index, at, char, sorted(lost), sorted(invented)))
    return result
