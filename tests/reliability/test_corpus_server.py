"""The language server on the bad-input corpus: one process, every input, every request answered.

One `python -m hwf_lsp` (driven by pytest-lsp) receives every corpus text: the
prefixes of each example as a typing session (a didChange per prefix), every
other case as its own didOpen.  After each, completion, hover and
documentSymbol are requested; every request must be answered (a result, or
MethodNotFound while a feature is not built yet) and never with an internal
error.  Each non-prefix case must get published diagnostics for its version,
with an error when the oracle says the design is invalid, and ranges that fit
the text.  At the end the server must still answer and its log must hold no
traceback (a handler that swallowed an exception still counts as a crash).
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

import pytest
from corpus import Case, example_texts, invalid_utf8, nesting, odd_values
from corpus import big as big_cases
from lsprotocol import types
from oracle import lsp_lines, needs_an_error, range_problems, utf16_length
from pygls.exceptions import JsonRpcException, JsonRpcMethodNotFound
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features
from support.lsp import client_fixture

WORKSPACE = Path(tempfile.mkdtemp(prefix="hwf-reliability-ws-"))
HOME = Path(tempfile.mkdtemp(prefix="hwf-reliability-home-"))
LOG = WORKSPACE / "server.log"
REQUEST_TIMEOUT_S = 120.0
DIAGNOSTICS_TIMEOUT_S = 180.0
TYPING_WINDOW = 50


def _record_publish(client: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
    client.published.setdefault(params.uri, {})[params.version] = params.diagnostics


def _accept_registration(client: LanguageClient, params: object) -> None:
    """client/registerCapability (the server registers its workspace file watcher)."""


def _make_client() -> LanguageClient:
    client = LanguageClient(converter_factory=default_converter)
    features = dict(DEFAULT_CLIENT_FEATURES)
    features[types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS] = _record_publish
    features[types.CLIENT_REGISTER_CAPABILITY] = _accept_registration  # file watcher
    register_lsp_features(client, features)
    client.published = {}
    return client


CONFIG = ClientServerConfig(
    server_command=[sys.executable, "-m", "hwf_lsp", "--log-file", str(LOG)],
    client_factory=_make_client,
    server_env={**os.environ, "HERMES_HOME": str(HOME)},
)


client = client_fixture(CONFIG, WORKSPACE, scope="function")


class Tally:
    """Counts for docs/reliability.md, and every failure with the input that caused it."""

    def __init__(self) -> None:
        self.inputs = self.requests = self.answered = self.not_implemented = 0
        self.diagnosed = 0
        self.failures: list[str] = []
        self.timings: dict[str, float] = {}


def _end_position(text: str) -> types.Position:
    lines = lsp_lines(text)
    return types.Position(line=len(lines) - 1, character=utf16_length(lines[-1]))


def _middle_position(text: str) -> types.Position:
    return _end_position(text[: len(text) // 2])


async def _ask(client: LanguageClient, tally: Tally, label: str, uri: str, text: str) -> None:
    """completion, hover and documentSymbol, concurrently; each must be answered."""
    doc = types.TextDocumentIdentifier(uri=uri)
    requests = {
        "completion": client.text_document_completion_async(
            types.CompletionParams(text_document=doc, position=_end_position(text))),
        "hover": client.text_document_hover_async(
            types.HoverParams(text_document=doc, position=_middle_position(text))),
        "documentSymbol": client.text_document_document_symbol_async(
            types.DocumentSymbolParams(text_document=doc)),
    }
    tally.requests += len(requests)
    results = await asyncio.gather(
        *(asyncio.wait_for(r, REQUEST_TIMEOUT_S) for r in requests.values()),
        return_exceptions=True)
    for method, result in zip(requests, results, strict=True):
        if isinstance(result, JsonRpcMethodNotFound):
            tally.answered += 1
            tally.not_implemented += 1
        elif isinstance(result, asyncio.TimeoutError):
            tally.failures.append(f"{label}: {method} unanswered after {REQUEST_TIMEOUT_S:g} s")
        elif isinstance(result, JsonRpcException):
            tally.answered += 1
            tally.failures.append(f"{label}: {method} answered with an error: {result}")
        elif isinstance(result, BaseException):
            tally.failures.append(f"{label}: {method} failed: {type(result).__name__}: {result}")
        else:
            tally.answered += 1


async def _published(client: LanguageClient, uri: str, version: int) -> list[types.Diagnostic]:
    deadline = time.monotonic() + DIAGNOSTICS_TIMEOUT_S
    while version not in client.published.get(uri, {}):
        if time.monotonic() > deadline:
            raise TimeoutError(f"no diagnostics for {uri} v{version}")
        await asyncio.sleep(0.01)
    return client.published[uri][version]


def _check_diagnostics(tally: Tally, label: str, text: str,
                       diagnostics: list[types.Diagnostic]) -> None:
    errors = [d for d in diagnostics if d.severity in (None, types.DiagnosticSeverity.Error)]
    if needs_an_error(text) and not errors:
        tally.failures.append(f"{label}: no error diagnostic for an invalid design")
    lines = lsp_lines(text)
    for diagnostic in diagnostics:
        rng = {"start": {"line": diagnostic.range.start.line,
                         "character": diagnostic.range.start.character},
               "end": {"line": diagnostic.range.end.line,
                       "character": diagnostic.range.end.character}}
        tally.failures += [f"{label}: {p}" for p in range_problems(lines, rng)]
        if not diagnostic.message.strip() or len(diagnostic.message) > 2000:
            tally.failures.append(f"{label}: unclear message {diagnostic.message[:100]!r}")


async def _typing_session(client: LanguageClient, tally: Tally, number: int, name: str,
                          text: str) -> None:
    """Type an example one character at a time (a full-text didChange per prefix).

    Requests are pipelined: each prefix's three requests are sent right after its
    change, and answers are collected every TYPING_WINDOW prefixes, as an editor
    that does not wait for one answer before the next keystroke.
    """
    uri = (WORKSPACE / f"typed-{number}.hwf.json").as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="json", version=0, text="")))
    pending = []
    for end in range(len(text) + 1):
        prefix = text[:end]
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=end + 1),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=prefix)]))
        tally.inputs += 1
        pending.append(asyncio.ensure_future(
            _ask(client, tally, f"prefix {name}[:{end}]", uri, prefix)))
        if len(pending) >= TYPING_WINDOW:
            await asyncio.gather(*pending)
            pending.clear()
    await asyncio.gather(*pending)
    final = await _published(client, uri, len(text) + 1)  # ends on the last version
    tally.diagnosed += 1
    _check_diagnostics(tally, f"prefix {name} (whole)", text, final)


async def _one_case(client: LanguageClient, tally: Tally, number: int, case: Case) -> None:
    uri = (WORKSPACE / f"case-{number}.hwf.json").as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="json", version=1,
                                             text=case.text)))
    tally.inputs += 1
    await _ask(client, tally, case.label, uri, case.text)
    try:
        diagnostics = await _published(client, uri, 1)
    except TimeoutError as exc:
        tally.failures.append(f"{case.label}: {exc}")
    else:
        tally.diagnosed += 1
        _check_diagnostics(tally, case.label, case.text, diagnostics)
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=uri)))
    client.published.pop(uri, None)


def _other_cases(scale: str) -> list[Case]:
    test = scale == "test"
    cases = [*nesting(all_shapes_to=10**5 if test else 10**6), *odd_values(),
             *big_cases(10, many_nodes=not test)]
    if not test:
        cases += big_cases(30)
    # invalid UTF-8 cannot travel in a JSON string; its decoded-with-replacement text can
    cases += [Case(c.label + " (decoded with U+FFFD)", c.data.decode("utf-8", "replace"),
                   c.data) for c in invalid_utf8()]
    return cases


async def _run(client: LanguageClient, scale: str) -> Tally:
    tally = Tally()
    started = time.monotonic()
    for number, (name, text) in enumerate(example_texts()):
        await _typing_session(client, tally, number, name, text)
    tally.timings["typing"] = time.monotonic() - started
    for number, case in enumerate(_other_cases(scale)):
        started = time.monotonic()
        await _one_case(client, tally, number, case)
        tally.timings[case.label] = time.monotonic() - started
    # still alive and answering
    await _ask(client, tally, "after the corpus", (WORKSPACE / "typed-0.hwf.json").as_uri(),
               example_texts()[0][1])
    assert client._server is not None and client._server.returncode is None
    log = LOG.read_text(encoding="utf-8", errors="replace") if LOG.exists() else ""
    if "Traceback" in log:
        tally.failures.append("server log holds a traceback:\n" + log[-4000:])
    return tally


def _report(tally: Tally, what: str) -> None:
    print(f"\n{what}: inputs={tally.inputs} requests={tally.requests} "
          f"answered={tally.answered} (method not found: {tally.not_implemented}) "
          f"diagnosed={tally.diagnosed} failures={len(tally.failures)}")
    slowest = sorted(tally.timings.items(), key=lambda kv: -kv[1])[:8]
    print("slowest:", ", ".join(f"{label} {seconds:.1f}s" for label, seconds in slowest))
    assert tally.failures == [], "\n".join(tally.failures[:30])
    assert tally.answered == tally.requests


async def test_server_answers_every_corpus_input(client: LanguageClient) -> None:
    tally = await _run(client, "test")
    _report(tally, "server corpus")
    assert tally.inputs > 6000


@pytest.mark.slow
@pytest.mark.timeout(3600)
async def test_server_soak_corpus(client: LanguageClient) -> None:
    _report(await _run(client, "soak"), "server soak corpus")
