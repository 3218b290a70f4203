"""`after` completion at 5,000 nodes: bounded, and a hover sent meanwhile answers promptly.

Before (issue 16, item 6) one completion took ~15 s here and every other request waited:
the cycle check ran once per candidate (5,000 graph walks).  Now the descendants are
found once, and the list holds the 100 ids nearest the cursor (incomplete: the client
asks again as the user types).

Each round edits the document first, so every completion is on a fresh version (its node
list built from scratch).  Run with -s for the figures.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

import pytest
from helpers_lsp import (
    change_doc,
    design_uri,
    edit_doc,
    open_doc,
    position,
    wait_published,
)
from lsprotocol import types

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.after_completion import after_cursor  # noqa: E402
from bench.gen import design_with_nodes  # noqa: E402

pytestmark = pytest.mark.asyncio(loop_scope="module")

ROUNDS = 5
COMPLETION_LIMIT_S = 3.0
WARM_LIMIT_S = 0.25
"""Medians: one round on a box this loaded can be descheduled for seconds."""
"""Loose for a loaded 2-core box; the figures printed are what to compare."""


async def timed(request) -> tuple[float, object]:
    started = time.perf_counter()
    result = await request
    return time.perf_counter() - started, result


async def test_after_completion_at_5000_nodes_leaves_hover_responsive(client):
    original = design_with_nodes(5000).text
    uri = design_uri(f"after-5000-{client.client_name}")
    open_doc(client, uri, original)
    await wait_published(client, uri, 1, timeout=60)
    offset = after_cursor(original)
    hover_at = original.index('"prompt"', len(original) // 4) + 2
    ident = types.TextDocumentIdentifier(uri=uri)
    shift = 0

    async def fresh_version(mark: str) -> None:
        nonlocal shift
        text = original.replace('"Step 1"', f'"Step 1 ({mark})"', 1)
        shift = len(f" ({mark})")
        await wait_published(client, uri, change_doc(client, uri, text), timeout=60)
        return text

    def completion(text):
        return client.text_document_completion_async(types.CompletionParams(
            text_document=ident, position=position(text, offset + shift, client.encoding)))

    def hover(text):
        return client.text_document_hover_async(types.HoverParams(
            text_document=ident, position=position(text, hover_at + shift, client.encoding)))

    cold, warm, alone, meanwhile = [], [], [], []
    for round_ in range(ROUNDS):
        text = await fresh_version(f"h{round_}")
        alone.append((await timed(hover(text)))[0])  # a hover on a fresh version, by itself
        text = await fresh_version(f"c{round_}")
        pending = asyncio.ensure_future(timed(completion(text)))
        await asyncio.sleep(0.002)  # the completion is in flight
        hover_time, answer = await timed(hover(text))
        completion_time, result = await pending
        assert answer is not None and result.is_incomplete and len(result.items) == 100
        assert result.items[0].label == "n00000"  # the trigger first
        cold.append(completion_time)
        meanwhile.append(hover_time)
        warm.append((await timed(completion(text)))[0])

    def ms(values: list[float]) -> str:
        return f"p50 {statistics.median(values) * 1000:.0f} ms, max {max(values) * 1000:.0f} ms"

    print(f"\n{client.client_name}, after completion at 5000 nodes: fresh version {ms(cold)}; "
          f"same version again {ms(warm)}; hover on a fresh version alone {ms(alone)}, "
          f"sent during a completion {ms(meanwhile)}")
    assert statistics.median(cold) < COMPLETION_LIMIT_S
    assert statistics.median(warm) < WARM_LIMIT_S
    assert statistics.median(meanwhile) < 2 * statistics.median(alone) + 0.1


async def test_after_completion_at_5000_nodes_right_after_the_keystroke_that_breaks_the_json(
        client):
    """`,` typed after the list's last id (a trigger character): the text is no longer
    JSON, and the completion sent with the keystroke still lists the 100 nearest ids."""
    original = design_with_nodes(5000).text
    uri = design_uri(f"after-break-5000-{client.client_name}")
    open_doc(client, uri, original)
    await wait_published(client, uri, 1, timeout=60)
    last_id_end = original.rindex('"', 0, original.index("]", after_cursor(original))) + 1
    ident = types.TextDocumentIdentifier(uri=uri)
    times, first = [], 0
    for _ in range(ROUNDS):  # typed as editors send it: a ranged change
        broken, version = edit_doc(client, uri, original, last_id_end, last_id_end, ",")
        elapsed, result = await timed(client.text_document_completion_async(
            types.CompletionParams(text_document=ident, position=position(
                broken, last_id_end + 1, client.encoding))))
        first += not any(p.uri == uri and p.version == version for p in client.published)
        diagnostics = await wait_published(client, uri, version, timeout=60)
        assert "Trailing comma" in [d.message for d in diagnostics], diagnostics[:3]
        assert result.is_incomplete and len(result.items) == 100
        assert result.items[0].label == "n00000"
        times.append(elapsed)
        _, version = edit_doc(client, uri, broken, last_id_end, last_id_end + 1, "")
        await wait_published(client, uri, version, timeout=60)
    print(f"\n{client.client_name}, after completion right after the breaking ',': p50 "
          f"{statistics.median(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms; "
          f"answered before that version's diagnostics in {first} of {ROUNDS}")
    assert statistics.median(times) < COMPLETION_LIMIT_S
