"""Recovery: a syntax error costs at most the node it is in (issue 16, item 1).

The corpus test injects every break kind into every node of every design in both
layouts (tests/support/breaks.py) and holds the findings on all other nodes, their
exact ranges included, to the intact design's; and the syntax error to one message.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from pathlib import Path

import pytest
from support.breaks import LAYOUTS, Break, breaks_of, corpus_designs, member_value, node_objects

from hwf_lsp.analysis.completion_items import complete
from hwf_lsp.analysis.design import design_of
from hwf_lsp.analysis.findings import check_text
from hwf_lsp.analysis.hover_text import hover
from hwf_lsp.analysis.navigation import definition
from hwf_lsp.analysis.symbols import document_symbols
from hwf_lsp.jsontext.jsontree import parse

REPO = Path(__file__).resolve().parents[2]
SOAK = os.environ.get("HWF_SOAK") == "1"
SAMPLE = {"generated-50": 6, "generated-500": 2}
"""Nodes broken per generated design under `make test` (every node under HWF_SOAK=1)."""
OUTLINE_UP_TO = 60
"""The outline and the neighbours' hover, definition and completion are compared on
designs up to this many nodes (each costs a walk of all)."""


def syntax(findings):
    return [f for f in findings if f.rule == "json-syntax"]


def check(text: str, expected: list[tuple[str, str]]) -> None:
    """`text`'s syntax issues are exactly `expected`: (message, the text it covers)."""
    doc = parse(text)
    assert [(i.msg, text[i.start:i.end]) for i in doc.errors] == expected


# (case, text, [(message, covered text)])
PARSER_CASES = [
    ("stray brace between nodes", '{"nodes": [{"id": "a"}}, {"id": "b"}]}',
     [("Unexpected '}'", "}")]),
    ("stray brace inside a node", '{"nodes": [{"id": "a"}, "type": "agent"}, {"id": "b"}]}',
     [("Unexpected '}'", "}")]),
    ("stray bracket inside a node", '{"nodes": [{"id": "a"], "type": "agent"}, {"id": "b"}]}',
     [("Unexpected ']'", "]")]),
    ("missing ] before }", '{"nodes": [{"id": "a", "after": ["t"}, {"id": "b"}]}',
     [("Expected ']' before '}'", "}")]),
    ("missing ] at the end", '{"nodes": [{"id": "a"}\n}', [("Expected ']' before '}'", "}")]),
    ("missing } before the next node", '{"nodes": [{"id": "a", "type": "x",\n {"id": "b"}]}',
     [("Expected '}' before ','", ",")]),
    ("missing } and , before the next node", '{"nodes": [{"id": "a"\n {"id": "b"}]}',
     [("Expected '}' after the last member", "")]),
    ("missing } of the last node", '{"nodes": [{"id": "a", "type": "x"\n]}',
     [("Expected '}' before ']'", "]")]),
    ("missing { of a node", '{"nodes": [{"id": "a"}, "id": "b", "type": "x"}]}',
     [("Expected '{' before a property name", '"id"')]),
    ("missing { of the first node", '{"nodes": ["id": "b", "type": "x"}]}',
     [("Expected '{' before a property name", '"id"')]),
    ("unclosed string at the end of a line", '{"nodes": [{"id": "a",\n"type": "agent,\n'
     '"title": "t"}]}', [("Unterminated string", '"agent')]),
    ("unclosed string before the next member", '{"nodes": [{"id": "a", "type": "agent, '
     '"title": "t"}]}', [("Unterminated string", '"agent')]),
    ("unclosed string before a closer", '{"nodes": [{"id": "a", "after": ["t]}]}',
     [("Unterminated string", '"t')]),
    ("unclosed key", '{"nodes": [{"id": "a", "type: "agent"}]}',
     [("Unterminated string", '"type')]),
    ("stray word between members", '{"nodes": [{"id": "a", oops "type": "agent"}]}',
     [("Expected a property name in double quotes", "oops")]),
    ("missing comma", '{"nodes": [{"id": "a" "type": "agent"}]}',
     [("Expected ',' or '}' after a member", '"type"')]),
    ("missing colon", '{"nodes": [{"id": "a", "type" "agent"}]}',
     [("Expected ':' after the property name", '"type"')]),
]


@pytest.mark.parametrize(("case", "text", "expected"), PARSER_CASES,
                         ids=[c[0] for c in PARSER_CASES])
def test_one_message_per_error(case, text, expected):
    check(text, expected)


@pytest.mark.parametrize(("case", "text", "expected"), PARSER_CASES,
                         ids=[c[0] for c in PARSER_CASES])
def test_every_node_is_recovered(case, text, expected):
    """Both nodes of each case are in the value, with their ids (the break costs no node)."""
    ids = [n.get("id") for n in parse(text).to_python()["nodes"]]
    assert ids in (["a"], ["b"], ["a", "b"]) and ids == [i for i in ("a", "b") if
                                                          f'"id": "{i}"' in text]


def test_the_issue_reproduction():
    """review-flow with retries 9 and `}},` after that node: one syntax error, every rule."""
    intact = (REPO / "examples" / "review-flow.hwf.json").read_text(encoding="utf-8")
    intact = intact.replace('"retries": 1,', '"retries": 9,')
    at = intact.index("    },", intact.index('"retries": 9'))
    broken = intact[:at] + "    }}," + intact[at + len("    },"):]
    _, before = check_text(intact)
    _, after = check_text(broken)
    assert [(f.msg, broken[f.start:f.end]) for f in syntax(after)] == [("Unexpected '}'", "}")]
    moved = Break("stray", at + 5, "}")
    assert [(f.rule, f.msg, moved.original(f.start)) for f in after if f.rule != "json-syntax"] \
        == [(f.rule, f.msg, f.start) for f in before]
    assert any(f.rule == "retries" for f in after)


def _elsewhere(findings, spans, broken_index, mapping=None):
    """Findings not on the broken node, as comparable tuples (offsets mapped back)."""
    start, end = spans
    out = []
    for f in findings:
        if f.rule == "json-syntax" or f.index == broken_index:
            continue
        s, e = (mapping(f.start), mapping(f.end)) if mapping else (f.start, f.end)
        if start <= s < end:
            continue
        out.append((f.rule, f.severity, f.msg, f.node, f.field, f.index, s, e))
    return sorted(out)


def _others(infos, broken_index):
    return [(i.index, i.id, i.kind) for i in infos if i.index != broken_index]


def _symbols(doc, broken, mapping=None):
    """The outline's nodes but the broken one (the one inside the span `broken`)."""
    out = []
    for s in document_symbols(doc):
        start = mapping(s.start) if mapping else s.start
        if not broken[0] <= start < broken[1]:
            out.append((s.name, s.kind, start))
    return sorted(out)


def _features(doc, objs, index, moved=None):
    """Hover on the id, go to definition from the first `after` entry and completion in
    the `type` value of the broken node's neighbours (offsets in the intact text)."""
    move = moved or (lambda offset: offset)
    back = []
    for near in (index - 1, index + 1):
        if not 0 <= near < len(objs):
            continue
        ident, kind, after = (member_value(objs[near], k) for k in ("id", "type", "after"))
        found = hover(doc, move(ident.start + 1)) if ident is not None else None
        back.append(found.markdown if found is not None else None)
        if after is not None and after.items:
            target = definition(doc, move(after.items[0].start + 1))
            back.append(target.node_id if target is not None else None)
        if kind is not None and kind.kind == "string":
            back.append(sorted(i.label for i in complete(doc, move(kind.start + 1))))
    return back


def _one_case(text, before, infos, symbols, objs, index, brk, features):
    """Problems with one broken variant ([] when the break cost only its node)."""
    broken = brk.apply(text)
    doc, after = check_text(broken)
    problems = []
    obj = objs[index]
    if len(syntax(after)) != 1:
        problems.append(f"syntax: {[(f.msg, broken[f.start:f.end]) for f in syntax(after)]}")
    span = (obj.start, obj.end)
    if _elsewhere(after, span, index, brk.original) != _elsewhere(before, span, index):
        problems.append("findings differ")
    if _others(design_of(doc).infos, index) != _others(infos, index):
        problems.append("nodes differ")
    if symbols is not None and _symbols(doc, span, brk.original) != symbols:
        problems.append("symbols differ")
    if features is not None and _features(doc, objs, index, brk.moved) != features:
        problems.append("hover, definition or completion differ")
    return problems


def test_recovery_corpus():
    """designs × layouts × nodes × break kinds: the other nodes keep their findings
    (exact ranges), the node list and the outline, and the neighbours their hover,
    definition and completion; one syntax message per break."""
    counts: Counter[str] = Counter()
    failures = []
    rng = random.Random(16)
    for name, design in corpus_designs().items():
        for layout, render in LAYOUTS.items():
            text = render(design)
            doc, before = check_text(text)
            infos = design_of(doc).infos
            objs = node_objects(text)
            indexes = list(range(len(objs)))
            if name in SAMPLE and not SOAK:
                indexes = sorted(rng.sample(indexes, SAMPLE[name]))
            for index in indexes:
                obj = objs[index]
                small = len(objs) <= OUTLINE_UP_TO
                symbols = _symbols(doc, (obj.start, obj.end)) if small else None
                features = _features(doc, objs, index) if small else None
                for brk in breaks_of(text, obj):
                    counts["cases"] += 1
                    counts[f"kind {brk.kind}"] += 1
                    problems = _one_case(text, before, infos, symbols, objs, index, brk,
                                         features)
                    if problems:
                        failures.append((name, layout, index, brk.kind, problems))
                    else:
                        counts["passed"] += 1
            counts["designs×layouts"] += 1
            counts["nodes broken"] += len(indexes)
    print(f"\nrecovery corpus: {dict(counts)}")
    assert not failures, f"{len(failures)} of {counts['cases']} cases: {failures[:10]}"
