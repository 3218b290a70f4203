"""docs/feature-comparison.md: the LSP features, hwf-lsp beside three peers.

    python -m bench.peers-features.compare      (from the repo root; needs `npm ci` here)

hwf-lsp is asked over LSP (bench/lsp_client.py, a real server process) on the same
design the peers' JSON service gets (samples/design.hwf.json: the review-flow example
with `retries` out of range and a duplicate key); each peer library is asked through its
own API on a document of its language (probe.mjs).  A row is one LSP feature; a cell says
what came back at the probe position ("—": the server or library has no such feature).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO))

from bench.lsp_client import LspClient, LspError  # noqa: E402

DESIGN = HERE / "samples" / "design.hwf.json"
PEERS = ("vscode-json-languageservice", "amazon-states-language-service",
         "@actions/languageservice")
FEATURES = ("diagnostics", "pullDiagnostics", "completion", "hover", "definition",
            "references", "rename", "documentHighlight", "documentSymbol", "codeAction",
            "codeLens", "inlayHint", "formatting", "rangeFormatting", "onTypeFormatting",
            "foldingRange", "selectionRange", "semanticTokens", "callHierarchy",
            "documentLink", "documentColor")
CAPABILITIES = {
    "general": {"positionEncodings": ["utf-16"]},
    "textDocument": {
        "publishDiagnostics": {"relatedInformation": True, "versionSupport": True,
                               "tagSupport": {"valueSet": [1, 2]},
                               "codeDescriptionSupport": True},
        "documentSymbol": {"hierarchicalDocumentSymbolSupport": True},
        "hover": {"contentFormat": ["markdown", "plaintext"]},
        "completion": {"completionItem": {"snippetSupport": True}},
    },
    "workspace": {"configuration": False},
}


def count(result: Any, noun: str = "items") -> str:
    if isinstance(result, dict) and "items" in result:
        result = result["items"]
    if isinstance(result, dict) and "data" in result:
        return f"{len(result['data']) // 5} tokens" if result["data"] else "empty"
    items = result if isinstance(result, list) else [result] if result else []
    return f"{len(items)} {noun}" if items else "empty"


def diagnostics_summary(items: list[dict]) -> str:
    extras = [name for name, key in (("related", "relatedInformation"), ("tags", "tags"),
                                     ("links", "codeDescription"))
              if any(d.get(key) for d in items)]
    return count(items) + (f" ({', '.join(extras)})" if extras else "")


async def probe_hwf() -> dict[str, str]:
    text = DESIGN.read_text(encoding="utf-8")
    uri = DESIGN.as_uri()
    client = LspClient([sys.executable, "-m", "hwf_lsp"], cwd=str(REPO))
    await client.start()
    out: dict[str, str] = {}
    try:
        init = await client.request("initialize", {
            "processId": None, "rootUri": HERE.as_uri(), "capabilities": CAPABILITIES})
        await client.notify("initialized", {})
        seq = client.last_seq()
        await client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "json", "version": 1, "text": text}})
        await client.wait_publish(uri, 1, seq, 20.0)
        out["diagnostics"] = diagnostics_summary(client.latest_diagnostics[uri])
        out["pullDiagnostics"] = "offered" if init["capabilities"].get(
            "diagnosticProvider") else "—"

        def pos(needle: str, shift: int = 0) -> dict[str, int]:
            offset = text.index(needle) + shift
            line = text.count("\n", 0, offset)
            return {"line": line, "character": offset - (text.rfind("\n", 0, offset) + 1)}

        doc = {"textDocument": {"uri": uri}}
        at_ref = {**doc, "position": pos('["draft"]', 3)}
        lines = text.count("\n")
        requests = {
            "completion": ("textDocument/completion",
                           {**doc, "position": pos('"retries": 9,', 13)}, "items"),
            "hover": ("textDocument/hover", {**doc, "position": pos('"retries"', 2)}, None),
            "definition": ("textDocument/definition", at_ref, "locations"),
            "references": ("textDocument/references",
                           {**at_ref, "context": {"includeDeclaration": True}}, "locations"),
            "rename": ("textDocument/rename", {**at_ref, "newName": "draft2"}, None),
            "documentHighlight": ("textDocument/documentHighlight", at_ref, "highlights"),
            "documentSymbol": ("textDocument/documentSymbol", doc, "symbols (tree)"),
            "codeAction": ("textDocument/codeAction", {**doc, "range": {
                "start": pos('"retries": 9'), "end": pos('"retries": 9', 12)},
                "context": {"diagnostics": client.latest_diagnostics[uri]}}, "actions"),
            "codeLens": ("textDocument/codeLens", doc, "lenses"),
            "inlayHint": ("textDocument/inlayHint", {**doc, "range": {
                "start": {"line": 0, "character": 0},
                "end": {"line": lines, "character": 0}}}, "hints"),
            "formatting": ("textDocument/formatting", {**doc, "options": {
                "tabSize": 2, "insertSpaces": True}}, "edits"),
            "rangeFormatting": ("textDocument/rangeFormatting", {**doc, "range": {
                "start": pos('"retries"'), "end": pos('["draft"]')}, "options": {
                "tabSize": 2, "insertSpaces": True}}, "edits"),
            "onTypeFormatting": ("textDocument/onTypeFormatting", {
                **doc, "position": pos('"after": ["draft"]\n    }', 24), "ch": "}",
                "options": {"tabSize": 2, "insertSpaces": True}}, "edits"),
            "foldingRange": ("textDocument/foldingRange", doc, "ranges"),
            "selectionRange": ("textDocument/selectionRange",
                               {**doc, "positions": [pos('"retries"', 2)]}, None),
            "semanticTokens": ("textDocument/semanticTokens/full", doc, None),
            "callHierarchy": ("textDocument/prepareCallHierarchy", at_ref, None),
            "documentLink": ("textDocument/documentLink", doc, "links"),
            "documentColor": ("textDocument/documentColor", doc, "colors"),
        }
        for feature, (method, params, noun) in requests.items():
            out[feature] = await _ask(client, feature, method, params, noun)
    finally:
        await client.stop()
    return out


async def _ask(client: LspClient, feature: str, method: str, params: Any,
               noun: str | None) -> str:
    try:
        result = await client.request(method, params, timeout=20.0)
    except LspError as error:
        return "—" if "-32601" in str(error) or "not found" in str(error).lower() else \
            f"fails ({str(error)[:40]})"
    if feature == "hover":
        return "answers" if result else "empty"
    if feature == "rename":
        changes = (result or {}).get("changes") or {}
        return f"{sum(len(v) for v in changes.values())} edits" if changes else "empty"
    if feature == "selectionRange":
        depth, node = 0, (result or [None])[0]
        while node:
            depth, node = depth + 1, node.get("parent")
        return f"{depth} levels" if depth else "empty"
    if feature == "callHierarchy":
        if not result:
            return "empty"
        item = {"item": result[0]}
        ups = await client.request("callHierarchy/incomingCalls", item)
        downs = await client.request("callHierarchy/outgoingCalls", item)
        return f"{len(ups)} in / {len(downs)} out"
    return count(result, noun or "items")


def probe_peers() -> dict[str, dict[str, str]]:
    done = subprocess.run(["node", "--import", "./json-imports.mjs", "probe.mjs"], cwd=HERE,
                          capture_output=True, text=True, check=True, timeout=120)
    return json.loads(done.stdout)


def table(hwf: dict[str, str], peers: dict[str, dict[str, str]]) -> str:
    head = ["feature", "hwf-lsp", *PEERS]
    rows = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for feature in FEATURES:
        cells = [hwf.get(feature, "—")] + [peers[p].get(feature, "—") for p in PEERS]
        rows.append(f"| {feature} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main() -> int:
    hwf = asyncio.run(probe_hwf())
    peers = probe_peers()
    print(table(hwf, peers))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
