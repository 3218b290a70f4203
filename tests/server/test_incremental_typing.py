"""Typing into a prompt through the server (ranged edits, the free-text fast path, see
analysis/incremental.py) publishes what a fresh open of the same text publishes."""

from __future__ import annotations

import json

import pytest
from helpers_lsp import design_uri, open_and_wait, position, wait_published, write_run
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


def edit(client, uri: str, text: str, start: int, end: int, replacement: str) -> tuple[str, int]:
    """Send one ranged edit; the new text and its version."""
    version = client.versions[uri] + 1
    client.versions[uri] = version
    rng = types.Range(start=position(text, start, client.encoding),
                      end=position(text, end, client.encoding))
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangePartial(range=rng, text=replacement)]))
    return text[:start] + replacement + text[end:], version


def shown(diagnostics: list[types.Diagnostic]) -> list[tuple]:
    return [(d.range.start.line, d.range.start.character, d.range.end.line, d.range.end.character,
             d.severity, d.code, d.message) for d in diagnostics]


async def test_typing_in_a_prompt_publishes_what_a_fresh_open_does(client):
    write_run("incremental-typing", "abcdef01", {"draft": {"text": "done"}})
    text = json.dumps(DESIGN, indent=2, ensure_ascii=False)
    uri = design_uri(f"incremental-typing-{client.client_name}")
    first = await open_and_wait(client, uri, text)
    assert first  # retries, deadline, edges, unknown field, path-absent
    # type a word into the first prompt, one keystroke at a time, waiting for each publish
    at = text.index("😀 it") + 1
    for char in "abc é😀\\\"":
        text, version = edit(client, uri, text, at, at, char)
        at += 1
        published = await wait_published(client, uri, version)
        fresh_uri = design_uri(f"incremental-typing-{client.client_name}-v{version}")
        assert shown(published) == shown(await open_and_wait(client, fresh_uri, text))
    # delete in the question and the title, blank then refill a prompt, edit an id
    steps = [  # (what to find, offset into it, characters to delete, replacement)
        ("Ship?", 0, 2, ""),
        ("Start", 0, 1, "R"),
        ("Review", 0, 6, ""),
        ('"prompt": ""', 11, 0, "Look"),
        ('"ghost"', 1, 5, "draft"),
        ("Write", 0, 1, '"'),
    ]
    for needle, skip, delete, replacement in steps:
        start = text.index(needle) + skip
        end = start + delete
        text, version = edit(client, uri, text, start, end, replacement)
        published = await wait_published(client, uri, version)
        fresh_uri = design_uri(f"incremental-typing-{client.client_name}-s{version}")
        assert shown(published) == shown(await open_and_wait(client, fresh_uri, text)), \
            (start, end, replacement)
