"""Typing through the server publishes what a fresh open of the same text publishes: in
prompts, ids, `after` entries, conditions and numbers, and in the whitespace between
tokens, with emoji before them, with requests in between (which parse the text), sent as
range edits and as whole texts, and on in broken JSON until it is mended."""

from __future__ import annotations

import json

import pytest
from helpers_lsp import (
    design_uri,
    edit_doc,
    open_and_wait,
    open_doc,
    position,
    wait_published,
    wait_published_with,
    write_run,
)
from lsprotocol import types

pytestmark = pytest.mark.asyncio(loop_scope="module")

DESIGN = {
    "name": "incremental-typing",
    "nodes": [
        {"id": "start", "type": "trigger", "title": "Start 😀 here"},
        {"id": "draft", "type": "agent", "after": ["start"], "prompt": "Write 😀 it",
         "retries": 9},
        {"id": "gate", "type": "condition", "after": ["draft"],
         "expression": "out.draft.missing.path == 1"},
        {"id": "ask", "type": "approval", "after": ["gate"], "question": "Ship?",
         "on_timeout": "later", "promt": "typo"},
        {"id": "late", "type": "agent", "after": ["ghost"], "prompt": "Review"},
    ],
}


def shown(diagnostics: list[types.Diagnostic]) -> list[tuple]:
    return [(d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character,
             d.severity, d.code, d.message) for d in diagnostics]


@pytest.mark.parametrize("whole", [False, True], ids=["ranged", "whole-text"])
async def test_typing_publishes_what_a_fresh_open_does(client, whole):
    write_run("incremental-typing", "abcdef01", {"draft": {"text": "done"}})
    text = json.dumps(DESIGN, indent=2, ensure_ascii=False)
    uri = design_uri(f"incremental-typing-{client.client_name}-{whole}")
    open_doc(client, uri, text)
    # the run just written shows once the server has seen it (run-aware findings follow)
    first = await wait_published_with(client, uri, 1, "path-absent")
    assert "path-absent" in {d.code for d in first}  # and retries, deadline, edges, field
    # type a word into the first prompt, one keystroke at a time, waiting for each publish
    at = text.index("😀 it") + 1
    for char in "abc é😀\\\"":
        text, version = edit_doc(client, uri, text, at, at, char, whole)
        at += 1
        published = await wait_published(client, uri, version)
        fresh_uri = design_uri(f"incremental-typing-{client.client_name}-{whole}-v{version}")
        assert shown(published) == shown(await open_and_wait(client, fresh_uri, text))
    # delete in the question and the title, blank then refill a prompt, rename ids, edit
    # references and a condition, ask for a hover in between, end on a syntax error
    steps = [  # (what to find, which occurrence, offset into it, characters to delete,
        #         replacement, hover first)
        ("Ship?", 0, 0, 2, "", False),
        ("Start", 0, 0, 1, "R", False),
        ("Review", 0, 0, 6, "", False),
        ('"prompt": ""', 0, 11, 0, "Look", False),
        ('"ghost"', 0, 1, 5, "draft", False),
        ('"gate"', 0, 1, 1, "G", False),  # the id: ask's after no longer resolves
        ('"gate"', 0, 1, 0, "x", True),  # its after entry, after a hover parsed the text
        ('"xgate"', 0, 1, 1, "", False),
        ("out.draft", 0, 4, 5, "gate", False),  # the condition now reads itself
        ("out.gate", 0, 4, 4, "ask", True),  # not upstream
        ("out.ask", 0, 4, 3, "draft", False),
        ('"start"', 1, 6, 0, "😀", False),  # draft's after entry, after an emoji
        ('"start😀"', 0, 6, 1, "", False),
        ('"retries": 9', 0, 12, 0, "0", False),  # a digit after the last: retries 90
        ('"retries": 90', 0, 11, 2, "2", False),  # back in range
        ('"retries": 2', 0, 11, 1, "true", True),  # not a number any more, after a hover
        ('"id": "Gate",', 0, 13, 0, "\n\n      ", False),  # Enter: lines below move down
        ('"id": "Gate",\n\n', 0, 14, 1, "", True),  # one blank line less, after a hover
        ('"type": "condition"', 0, 7, 0, "  ", False),  # spaces after a colon
        ("Write", 0, 0, 1, '"', False),  # not a string any more: the full check
        # typing on in broken JSON
        ('"question"', 0, 0, 0, " ", False),  # between tokens of another node
        ('"late"', 0, 1, 0, "x", True),  # an id, after a hover
        ('"xlate"', 0, 1, 1, "", False),
        ('""rite', 0, 1, 1, "W", False),  # mended
        ('"on_timeout"', 0, 0, 1, "", False),  # a key's opening quote gone
        ('on_timeout"', 0, 0, 0, "y", False),  # typing on in the broken node
        ('yon_timeout"', 0, 0, 1, '"', False),  # mended again
    ]
    for needle, occurrence, skip, delete, replacement, hover in steps:
        start = _find(text, needle, occurrence) + skip
        end = start + delete
        if hover:
            await client.text_document_hover_async(types.HoverParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=position(text, start, client.encoding)))
        text, version = edit_doc(client, uri, text, start, end, replacement, whole)
        published = await wait_published(client, uri, version)
        fresh_uri = design_uri(f"incremental-typing-{client.client_name}-{whole}-s{version}")
        assert shown(published) == shown(await open_and_wait(client, fresh_uri, text)), \
            (start, end, replacement)


def _find(text: str, needle: str, occurrence: int) -> int:
    at = -1
    for _ in range(occurrence + 1):
        at = text.index(needle, at + 1)
    return at
