"""A request read in the same breath as its keystroke answers the new text, and that
version is analysed once: the request and the diagnostics share one analysis
(bench/README.md, "Targets": no request waits for more than one analysis of the document)."""

from __future__ import annotations

import asyncio
import json

import pytest
from support.lsp import message

from hwf_lsp.server import documents
from hwf_lsp.server import server as server_module
from hwf_lsp.server.features import diagnostics
from hwf_lsp.server.server import build_server

DESIGN = {"name": "carry", "nodes": [
    {"id": "t", "type": "trigger"},
    {"id": "a", "type": "agent", "after": ["t"], "prompt": "Write é😀 it"},
    {"id": "b", "type": "agent", "after": ["a"], "prompt": "Review"}]}


class Frames:
    def __init__(self) -> None:
        self.sent: list[dict] = []

    def write(self, data: bytes) -> None:
        self.sent.append(json.loads(data.split(b"\r\n\r\n", 1)[1]))

    def close(self) -> None:
        pass


async def hover_with_keystroke(monkeypatch: pytest.MonkeyPatch) -> tuple[list, dict]:
    """Open, let it be checked, then a prompt keystroke and a hover on b's `after` entry
    handled back to back; the versions parsed in full, and the hover's answer."""
    parsed: list[int | None] = []
    real = documents.analyse

    def counted(uri, version, text, *args, **kwargs):
        parsed.append(version)
        return real(uri, version, text, *args, **kwargs)

    monkeypatch.setattr(server_module, "analyse", counted)
    monkeypatch.setattr(documents, "analyse", counted)
    monkeypatch.setattr(diagnostics, "analyse", counted)
    server = build_server()
    frames = Frames()
    server.protocol.set_writer(frames)
    handle = server.protocol.handle_message
    handle(message("initialize", {"processId": None, "rootUri": None, "capabilities": {}}, 1))
    handle(message("initialized", {}))
    uri = "file:///tmp/carry.hwf.json"
    text = json.dumps(DESIGN, indent=2, ensure_ascii=False)
    handle(message("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "json", "version": 1, "text": text}}))
    for _ in range(200):
        await asyncio.sleep(0.01)
        if any(f.get("method") == "textDocument/publishDiagnostics" for f in frames.sent):
            break
    lines = text.split("\n")
    typed = next(i for i, line in enumerate(lines) if "Write" in line)
    column = lines[typed].index("Write")
    entry = max(i for i, line in enumerate(lines) if line.strip() == '"a"')
    handle(message("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": 2},
        "contentChanges": [{"range": {"start": {"line": typed, "character": column},
                                      "end": {"line": typed, "character": column}},
                            "text": "x"}]}))
    handle(message("textDocument/hover", {"textDocument": {"uri": uri},
                                          "position": {"line": entry, "character": 9}}, 7))
    answer = next(f for f in frames.sent if f.get("id") == 7)
    for _ in range(100):
        await asyncio.sleep(0.01)
    return parsed, answer


async def test_a_hover_read_with_its_keystroke_answers_it_with_one_analysis(monkeypatch) -> None:
    parsed, answer = await hover_with_keystroke(monkeypatch)
    assert parsed.count(2) == 1  # one analysis, shared by the hover and the diagnostics
    value = answer["result"]["contents"]["value"]
    assert "agent" in value and "xWrite é😀 it" in value
