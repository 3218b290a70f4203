"""Completion end to end: ≥ 15 cursor positions, 6 of them in broken JSON, run-aware paths."""

from __future__ import annotations

import re
from functools import partial

import pytest
from helpers_lsp import (
    accept_item,
    cursor,
    design_uri,
    eventually,
    open_doc,
    wait_published,
    write_run,
)
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")

NAME = "completion-design"
HEAD = '{"name": "' + NAME + '", "nodes": [\n  {"id": "t", "type": "trigger"},\n'
A = '  {"id": "a", "type": "agent", "prompt": "Review", "after": ["t"]},\n'
N = '  {"id": "n", "type": "note", "text": "hi"},\n'
C = '  {"id": "c", "type": "condition", "after": ["b"], "expression": "out.b.x == 1"}\n'


def b_node(rest: str) -> str:
    return '  {"id": "b", "type": "agent", "prompt": "Fix", ' + rest


def design(middle: str, tail: str = "]}") -> str:
    return HEAD + A + N + middle + tail


OUTPUT = {"verdict": "ok", "score": 3, "nested": {"deep": [1, 2], "flag": True}}
KINDS = ["agent", "condition", "approval", "output", "note"]
"""The kinds a node may take in a design that has its trigger (never a second one)."""

# (case id, text with the cursor `|`, labels that must be offered, labels that must not,
#  (label to apply, text expected around the edit) or None)
CASES = [
    ("type-in-string", design(b_node('"after": ["a"], "type": "ag|"},\n') + C), KINDS,
     ["trigger"],
     ("agent", '"type": "agent"}')),
    ("type-bare", design(b_node('"after": ["a"], "type": |},\n') + C), KINDS, [],
     ("condition", '"type": "condition"}')),
    ("key-in-string", design(b_node('"after": ["a"], "type": "agent", "|"},\n') + C),
     ["retries", "timeout_minutes", "profile", "model", "title"],
     ["id", "type", "prompt", "expression", "question"], ("title", '"title": ""}')),
    # a number field in an auto-closed string: Neovim gets the snippet that deletes the quote
    ("key-number-in-string", design(b_node('"after": ["a"], "type": "agent", "|"},\n') + C),
     ["retries"], [], ("retries", '"retries": 0}')),
    ("key-bare-word", design('  {"id": "b", "type": "agent", "after": ["a"], pro|},\n' + C),
     ["prompt"], ["expression"], ("prompt", '"prompt": ""}')),
    ("key-approval", design('  {"id": "b", "type": "approval", "after": ["a"], "|"},\n' + C),
     ["question", "options", "on_timeout", "timeout_minutes"], ["prompt", "retries"], None),
    ("enum-on-timeout", design('  {"id": "b", "type": "approval", "question": "q", '
                               '"on_timeout": "|"},\n' + C), ["reject", "escalate"], [],
     ("escalate", '"on_timeout": "escalate"}')),
    ("enum-deliver", design('  {"id": "b", "type": "output", "deliver": "|"},\n' + C),
     ["notification", "channel"], [], None),
    ("enum-color", design('  {"id": "b", "type": "note", "color": "|"},\n' + C),
     ["yellow", "blue", "green", "red", ""], [], ("green", '"color": "green"}')),
    ("after-in-string", design(b_node('"type": "agent", "after": ["|"]},\n') + C),
     ["t", "a"], ["b", "n", "c"], ("a", '"after": ["a"]}')),
    ("after-empty", design(b_node('"type": "agent", "after": [|]},\n') + C), ["t", "a"],
     ["b", "n", "c"], None),
    ("after-second", design(b_node('"type": "agent", "after": ["a", |]},\n') + C), ["t"],
     ["a", "b", "n", "c"], None),
    ("expression-node", design(b_node('"type": "agent", "after": ["a"]},\n')
                               + C.replace("out.b.x == 1", "out.|")), ["b", "a"], ["c", "n", "t"],
     ("b", '"out.b."')),
    ("expression-path", design(b_node('"type": "agent", "after": ["a"]},\n')
                               + C.replace("out.b.x == 1", "out.b.|")),
     ["verdict", "score", "nested"], [], ("verdict", '"out.b.verdict"')),
    ("expression-nested", design(b_node('"type": "agent", "after": ["a"]},\n')
                                 + C.replace("out.b.x == 1", "out.b.nested.|")),
     ["deep", "flag"], ["verdict"], ("flag", '"out.b.nested.flag"')),
    ("expression-operator", design(b_node('"type": "agent", "after": ["a"]},\n')
                                   + C.replace("out.b.x == 1", "out.b.verdict |")),
     ["==", "!=", "<", "<=", ">", ">="], [], ("!=", '"out.b.verdict != "')),
    ("expression-literal", design(b_node('"type": "agent", "after": ["a"]},\n')
                                  + C.replace("out.b.x == 1", "out.b.verdict == |")),
     ['"ok"', "true", "false", "null"], [], ('"ok"', r'"out.b.verdict == \"ok\""')),
    ("new-node", HEAD + A + "  |\n]}", ["agent node", "condition node", "note node"],
     [], None),
    ("top-level-key", '{"name": "' + NAME + '", |}', ["nodes"], ["name"], None),
    # --- broken JSON ------------------------------------------------------------------
    ("broken-unterminated-eof", HEAD + A + '  {"id": "b", "type": "ag|', KINDS, [],
     ("agent", '"type": "agent"')),
    ("broken-unterminated-then-text", HEAD + A + b_node('"after": ["|\n  }\n]}'), ["t", "a"],
     ["b", "n"], ("t", '"after": ["t"]')),
    ("broken-missing-comma", design('  {"id": "b" "type": "|"},\n' + C), KINDS, [], None),
    ("broken-missing-comma-key", design(b_node('"type": "agent" "retr|\n') + C), ["retries"],
     [], ("retries", '"retries": 0')),
    ("broken-text-after-cursor", design(b_node('"type": "agent", "after": ["a"]},\n')
                                        + '  {"id": "c", "type": "condition", "expression": '
                                        '"out.b.|\n   , "after": ["b"]}\n'),
     ["verdict", "score", "nested"], [], ("score", '"out.b.score')),
    ("broken-bare-key-eof", HEAD + A + '  {"id": "b", "type": "approval", que|', ["question"],
     ["prompt"], ("question", '"question": ""')),
]


def squeeze(text: str) -> str:
    """JSON text without the spaces between tokens (plain items are written compact)."""
    return re.sub(r'("(?:[^"\\]|\\.)*")|\s+', lambda m: m.group(1) or "", text)


async def complete_at(client, uri: str, text: str, offset: int) -> list[types.CompletionItem]:
    from hwf_lsp.jsontext.positions import LineIndex

    line, character = LineIndex(text).position(offset, client.encoding)
    result = await client.text_document_completion_async(types.CompletionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        position=types.Position(line=line, character=character)))
    if result is None:
        return []
    return list(result.items if isinstance(result, types.CompletionList) else result)


async def test_completion_table(client):
    write_run(NAME, "c0c0c0c0", {"a": "done", "b": OUTPUT})
    for case_id, source, wanted, unwanted, apply in CASES:
        text, offset = cursor(source)
        uri = design_uri(f"{NAME}-{case_id}-{client.client_name}")
        open_doc(client, uri, text)
        await wait_published(client, uri, 1)
        # the run is found by the design's name, whatever the file is called (once seen)
        items = await eventually(partial(complete_at, client, uri, text, offset),
                                 partial(_has_all, set(wanted)))
        labels = [item.label for item in items]
        missing = [w for w in wanted if w not in labels]
        assert not missing, f"{case_id}: missing {missing} in {labels}"
        extra = [u for u in unwanted if u in labels]
        assert not extra, f"{case_id}: unexpected {extra} in {labels}"
        if apply is not None:
            label, expected = apply
            item = next(i for i in items if i.label == label)
            result = accept_item(text, item, client.encoding)
            assert squeeze(expected) in squeeze(result), f"{case_id}: {result!r}"


def _has_all(wanted: set[str], items: list[types.CompletionItem]) -> bool:
    return wanted <= {item.label for item in items}


async def test_upstream_nodes_come_first(client):
    source = design(b_node('"type": "agent", "after": ["t"]},\n')
                    + '  {"id": "d", "type": "agent", "prompt": "x", "after": ["a"]},\n'
                    + C.replace('"after": ["b"]', '"after": ["d"]').replace("out.b.x == 1",
                                                                            "out.|"))
    text, offset = cursor(source)
    uri = design_uri(f"{NAME}-order-{client.client_name}")
    open_doc(client, uri, text)
    await wait_published(client, uri, 1)
    items = await complete_at(client, uri, text, offset)
    ordered = [i.label for i in sorted(items, key=lambda i: i.sort_text or i.label)]
    assert ordered == ["d", "a", "b"]  # d is c's parent, a d's; b is not upstream


async def test_path_detail_shows_the_value(client):
    source = design(b_node('"type": "agent", "after": ["a"]},\n')
                    + C.replace("out.b.x == 1", "out.b.|"))
    text, offset = cursor(source)
    uri = design_uri(f"{NAME}-detail-{client.client_name}")
    open_doc(client, uri, text)
    await wait_published(client, uri, 1)
    items = {i.label: i for i in await eventually(
        lambda: complete_at(client, uri, text, offset),
        lambda items: "verdict" in {i.label for i in items})}
    assert items["verdict"].detail == '"ok"'
    assert items["score"].detail == "3"
