"""Issue 48, items 2 and 3: a stray quote, brace, bracket or comma typed at the start or
end of any node's line hides no finding of the other nodes and invents none
(tests/support/insertion_sweep.py says what is compared)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.breaks import LAYOUTS, corpus_designs
from support.insertion_sweep import CHARACTERS, sweep

from hwf_lsp.analysis.findings import check_text

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p for p in (REPO / "examples").glob("*.hwf.json")
                  if '"id"' in p.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_no_finding_lost_or_invented(path):
    result = sweep(path.read_text(encoding="utf-8"))
    print(f"\n{path.name}: {dict(result.counts)}")
    assert result.counts["tried"] >= 3 * len(CHARACTERS)  # the sweep ran on nodes
    assert (result.counts["lost"], result.counts["invented"]) == (0, 0), result.failures[:5]


CORPUS = {name: design for name, design in corpus_designs().items() if name != "generated-500"}


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("name", list(CORPUS))
def test_the_corpus_in_both_layouts(name, layout):
    """The same sweep on the recovery corpus re-laid out: a node over several lines (its
    `{` and `}` alone on theirs) and 50 nodes (a phantom node would put it over the cap)."""
    result = sweep(LAYOUTS[layout](CORPUS[name]))
    assert (result.counts["lost"], result.counts["invented"]) == (0, 0), result.failures[:5]


def findings_of(text: str) -> list[tuple[str, str, str]]:
    _, found = check_text(text)
    return [(f.rule, f.msg, text[f.start:f.end]) for f in found]


NODES = ('{"name": "d", "nodes": [\n'
         '    {"id": "t", "type": "trigger"},\n'
         '    {"id": "a", "type": "agent", "prompt": "p", "after": ["t"]}\n'
         ']}\n')
LINE = NODES.index('    {"id": "a"') + 4

# (case, text, the findings: rule, message, the text it covers)
CASES = [
    ("a quote before a node", NODES[:LINE] + '"' + NODES[LINE:],
     [("json-syntax", "Unexpected '\"'", '"')]),
    ("a quote at the end of a node's line", NODES.replace("},\n", '},"\n', 1),
     [("json-syntax", "Unexpected '\"'", '"')]),
    ("a bracket before a node", NODES[:LINE] + "[" + NODES[LINE:],
     [("json-syntax", "Unexpected '['", "[")]),
    ("a closing bracket before a node", NODES[:LINE] + "]" + NODES[LINE:],
     [("json-syntax", "Unexpected ']'", "]")]),
    ("a brace before a node", NODES[:LINE] + "{" + NODES[LINE:],
     [("json-syntax", "Unexpected '{'", "{")]),
    ("a word between nodes is no node (no 'got null')", NODES.replace("},\n", "},x\n", 1),
     [("json-syntax", "Unexpected 'x': expected a JSON value", "x")]),
    ("a word as a value is no null", NODES.replace('"prompt": "p"', '"prompt": x'),
     [("json-syntax", "Unexpected 'x': expected a JSON value", "x")]),
    ("a brace closing a node's { at once", NODES.replace('{"id": "a"', '{}\n"id": "a"'),
     [("json-syntax", "Unexpected '}'", "}")]),
    ("a bracket where a key belongs", NODES.replace('{"id": "a"', '{[\n"id": "a"'),
     [("json-syntax", "Unexpected '['", "[")]),
    ("a quote after the last node", NODES.replace("}\n]}", '}"\n]}'),
     [("json-syntax", "Unexpected '\"'", '"')]),
    ("a brace after the last node", NODES.replace("}\n]}", "}{\n]}"),
     [("json-syntax", "Unexpected '{'", "{")]),
]


@pytest.mark.parametrize(("case", "text", "expected"), CASES, ids=[c[0] for c in CASES])
def test_what_the_text_holds(case, text, expected):
    assert findings_of(text) == expected
