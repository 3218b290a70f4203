"""Helpers for the end-to-end server tests: documents, waiting, markers, run files."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from hwf_lsp.jsontext.positions import LineIndex

HERMES_HOME = Path(os.environ.get("HWF_TEST_HERMES_HOME", ""))
RUNS_DIR = HERMES_HOME / "workflow-runs"
WORKSPACE = Path(os.environ.get("HWF_TEST_WORKSPACE", ""))

T = TypeVar("T")


def _record_publish(client: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
    client.diagnostics[params.uri] = params.diagnostics
    client.published.append(params)


def _count_refresh(client: LanguageClient, params: None) -> None:
    client.refreshes = getattr(client, "refreshes", 0) + 1


def _count_diagnostic_refresh(client: LanguageClient, params: None) -> None:
    client.diagnostic_refreshes = getattr(client, "diagnostic_refreshes", 0) + 1


def accept_registration(client: LanguageClient, params: object) -> None:
    """client/registerCapability: the recorded VS Code capabilities claim dynamic
    registration (the server registers its workspace file watcher)."""
    client.registrations = [*getattr(client, "registrations", []), params]


def make_client() -> LanguageClient:
    client = LanguageClient(converter_factory=default_converter)
    features = dict(DEFAULT_CLIENT_FEATURES)
    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = _record_publish
    # refresh requests the recorded client capabilities claim to support
    features[types.WORKSPACE_INLAY_HINT_REFRESH] = _count_refresh
    features[types.WORKSPACE_CODE_LENS_REFRESH] = _count_refresh
    features[types.WORKSPACE_DIAGNOSTIC_REFRESH] = _count_diagnostic_refresh
    features[types.CLIENT_REGISTER_CAPABILITY] = accept_registration
    register_lsp_features(client, features)
    client.published = []
    return client


def server_config() -> ClientServerConfig:
    """`python -m hwf_lsp` with HERMES_HOME pointing at the session's temporary home."""
    return ClientServerConfig(
        server_command=[sys.executable, "-m", "hwf_lsp"],
        client_factory=make_client,
        server_env={**os.environ, "HERMES_HOME": str(HERMES_HOME)},
    )


def design_uri(name: str, suffix: str = ".hwf.json") -> str:
    return (WORKSPACE / f"{name}{suffix}").as_uri()


def position(text: str, offset: int, encoding: str) -> types.Position:
    line, character = LineIndex(text).position(offset, encoding)
    return types.Position(line=line, character=character)


def span_range(text: str, start: int, end: int, encoding: str) -> types.Range:
    return types.Range(start=position(text, start, encoding), end=position(text, end, encoding))


def as_tuple(rng: types.Range) -> tuple[int, int, int, int]:
    return (rng.start.line, rng.start.character, rng.end.line, rng.end.character)


def open_doc(client: LanguageClient, uri: str, text: str, version: int = 1) -> None:
    client.versions[uri] = version
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="json", version=version,
                                             text=text)))


def change_doc(client: LanguageClient, uri: str, text: str) -> int:
    version = client.versions.get(uri, 0) + 1
    client.versions[uri] = version
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
    return version


def edit_doc(client: LanguageClient, uri: str, text: str, start: int, end: int,
             replacement: str, whole: bool = False) -> tuple[str, int]:
    """Send one edit, ranged or (`whole`) as the whole new text; the new text, its version."""
    version = client.versions[uri] + 1
    client.versions[uri] = version
    new_text = text[:start] + replacement + text[end:]
    if whole:
        change: object = types.TextDocumentContentChangeWholeDocument(text=new_text)
    else:
        rng = types.Range(start=position(text, start, client.encoding),
                          end=position(text, end, client.encoding))
        change = types.TextDocumentContentChangePartial(range=rng, text=replacement)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[change]))
    return new_text, version


def close_doc(client: LanguageClient, uri: str) -> None:
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))


async def wait_published(client: LanguageClient, uri: str, version: int,
                         timeout: float = 20.0) -> list[types.Diagnostic]:
    """The diagnostics published for exactly `version` of `uri` (waits for them)."""
    deadline = time.monotonic() + timeout
    while True:
        for params in reversed(client.published):
            if params.uri == uri and params.version == version:
                return list(params.diagnostics)
        if time.monotonic() > deadline:
            seen = [(p.uri, p.version) for p in client.published if p.uri == uri]
            raise AssertionError(f"no diagnostics for {uri} v{version}; got {seen}")
        await asyncio.sleep(0.005)


async def wait_published_with(client: LanguageClient, uri: str, version: int, code: str,
                              timeout: float = 20.0) -> list[types.Diagnostic]:
    """The diagnostics of `version` once one has `code`: run-aware warnings follow the
    rulebook's (the first diagnostics never wait for the run history)."""
    deadline = time.monotonic() + timeout
    while True:
        diagnostics = await wait_published(client, uri, version, timeout)
        if any(d.code == code for d in diagnostics) or time.monotonic() > deadline:
            return diagnostics
        await asyncio.sleep(0.01)


async def eventually(ask: Callable[[], Awaitable[T]], ok: Callable[[T], bool],
                     timeout: float = 10.0) -> T:
    """The first answer of `ask` that is `ok`, else the last one after `timeout`: the runs
    watcher sees a run file written by a test a moment later (events, else a 200 ms poll),
    so answers about runs may first show the history before it."""
    deadline = time.monotonic() + timeout
    while True:
        answer = await ask()
        if ok(answer) or time.monotonic() > deadline:
            return answer
        await asyncio.sleep(0.01)


async def open_and_wait(client: LanguageClient, uri: str, text: str) -> list[types.Diagnostic]:
    open_doc(client, uri, text)
    return await wait_published(client, uri, 1)


def marked(source: str) -> tuple[str, list[tuple[int, int]]]:
    """Text with «…» markers removed, and the [start, end) offsets they enclosed."""
    spans: list[tuple[int, int]] = []
    out: list[str] = []
    start = None
    length = 0
    for char in source:
        if char == "«":
            start = length
        elif char == "»":
            spans.append((start, length))
        else:
            out.append(char)
            length += 1
    return "".join(out), spans


def cursor(source: str) -> tuple[str, int]:
    """Text with the `|` cursor marker removed, and its offset."""
    offset = source.index("|")
    return source[:offset] + source[offset + 1:], offset


def write_run(name: str, run_id: str, outputs: dict[str, Any], *, status: str = "completed",
              skipped: list[str] | None = None, pending: dict | None = None,
              error: Any = None, updated_at: str = "2026-11-30T05:00:00Z",
              design: dict | None = None) -> Path:
    """A run state file in the test Hermes home, in the spec's format."""
    RUNS_DIR.mkdir(parents=True, exist_ok=True)
    state = {
        "run_id": run_id, "name": name, "cursor": len(outputs), "status": status,
        "outputs": outputs, "skipped": skipped or [], "pending": pending, "error": error,
        "answers": {}, "deliveries": [], "attempts": {}, "design": design or {},
        "updated_at": updated_at,
    }
    path = RUNS_DIR / f"{run_id}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(state))
    os.replace(tmp, path)
    return path


def apply_edits(text: str, edits: list[types.TextEdit], encoding: str) -> str:
    """The text after the server's edits (quick fixes, rename), applied last to first."""
    lines = LineIndex(text)
    spans = sorted(((lines.offset(e.range.start.line, e.range.start.character, encoding),
                     lines.offset(e.range.end.line, e.range.end.character, encoding), e.new_text)
                    for e in edits), reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def snippet_defaults(snippet: str) -> str:
    """A snippet's text with its placeholders replaced by their defaults."""
    text = re.sub(r"\$\{\d+\|([^,|]*)[^}]*\}", r"\1", snippet)
    text = re.sub(r"\$\{\d+:([^}]*)\}", r"\1", text)
    text = re.sub(r"\$\d+", "", text)
    return text.replace("\\$", "$").replace("\\}", "}").replace("\\\\", "\\")


def accept_item(text: str, item: types.CompletionItem, encoding: str) -> str:
    """The text once `item` is accepted as a client that applies its ranges does: its edit
    (the replace range of an insert/replace edit) and its additional edits, last first."""
    lines = LineIndex(text)
    edits = []
    for edit in [item.text_edit, *(item.additional_text_edits or [])]:
        span = edit.replace if isinstance(edit, types.InsertReplaceEdit) else edit.range
        edits.append((lines.offset(span.start.line, span.start.character, encoding),
                      lines.offset(span.end.line, span.end.character, encoding),
                      snippet_defaults(edit.new_text)))
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def edits_of(edit: types.WorkspaceEdit, uri: str) -> list[types.TextEdit]:
    """The edits of one document in a WorkspaceEdit, `changes` or `documentChanges`."""
    if edit.changes is not None:
        return list(edit.changes.get(uri, []))
    return [e for change in edit.document_changes or []
            if isinstance(change, types.TextDocumentEdit) and change.text_document.uri == uri
            for e in change.edits]
