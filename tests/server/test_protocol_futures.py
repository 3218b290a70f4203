"""pygls 2.1.1 keeps every notification handler's future forever (`_request_futures`, under a
fresh uuid): about 2 KiB per keystroke.  HwfProtocol lets each go once it is done."""

from __future__ import annotations

import asyncio
import json

from support.lsp import message

from hwf_lsp.server.server import build_server

KEYSTROKES = 10_000
DESIGN = {"name": "leak", "nodes": [{"id": "t", "type": "trigger"},
                                    {"id": "a", "type": "agent", "prompt": "x",
                                     "after": ["t"]}]}


class NullWriter:
    def __init__(self) -> None:
        self.frames = 0

    def write(self, data: bytes) -> None:
        self.frames += 1

    def close(self) -> None:
        pass


async def type_keystrokes(count: int) -> tuple[int, int]:
    server = build_server()
    protocol = server.protocol
    protocol.set_writer(NullWriter())
    handle = protocol.handle_message
    handle(message("initialize", {"processId": None, "rootUri": None, "capabilities": {}}, 1))
    handle(message("initialized", {}))
    uri = "file:///tmp/leak.hwf.json"
    text = json.dumps(DESIGN)
    handle(message("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "json", "version": 1, "text": text}}))
    await asyncio.sleep(0.05)
    at = text.index('"x"') + 1
    before = len(protocol._request_futures)
    for version in range(2, count + 2):
        char = "xy"[version % 2]
        handle(message("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"range": {"start": {"line": 0, "character": at},
                                          "end": {"line": 0, "character": at + 1}},
                                "text": char}]}))
        if version % 500 == 0:
            await asyncio.sleep(0)  # let handlers finish, as the loop would between frames
    for _ in range(100):
        await asyncio.sleep(0.01)
    return before, len(protocol._request_futures)


def test_request_futures_do_not_grow_over_10000_notifications() -> None:
    before, after = asyncio.run(type_keystrokes(KEYSTROKES))
    assert after <= before + 2, (before, after)  # pygls 2.1.1 alone: 20,000 more
