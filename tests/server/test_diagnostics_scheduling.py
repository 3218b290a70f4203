"""The Validator's scheduling, in process: coalescing, ordering, closing, leaving designs."""

from __future__ import annotations

import asyncio
import json
import time
from types import SimpleNamespace

import pytest

from hwf_lsp.analysis.newest_run import RunInfo
from hwf_lsp.server.design_test_documents import DesignSource
from hwf_lsp.server.documents import analyse as real_analyse
from hwf_lsp.server.features import diagnostics


class StubServer:
    """Just what the Validator uses: open texts, design check, cache, publishing."""

    def __init__(self) -> None:
        self.texts: dict[str, tuple[int, str]] = {}
        self.designs: set[str] = set()
        self.analyses: dict = {}
        self.published: list[tuple[str, int | None, int]] = []
        self.runs = None
        self.encoding = "utf-16"

    @property
    def workspace(self):
        return SimpleNamespace(text_documents=self.texts)

    def open_text(self, uri):
        return self.texts.get(uri)

    def is_design(self, uri):
        return uri in self.designs

    def is_checked(self, uri):
        return self.is_design(uri)

    def design_source(self):
        return DesignSource()

    def remember(self, result):
        self.analyses[result.uri] = result

    def forget(self, uri):
        self.analyses.pop(uri, None)

    def text_document_publish_diagnostics(self, params):
        self.published.append((params.uri, params.version, len(params.diagnostics)))


@pytest.fixture
def slow_analyse(monkeypatch):
    """The versions checked, each check taking 50 ms."""
    calls: list[int | None] = []

    def slow(uri, version, text, runs=None, **kw):
        calls.append(version)
        time.sleep(0.05)
        return real_analyse(uri, version, text, runs, **kw)

    monkeypatch.setattr(diagnostics, "analyse", slow)
    return calls


async def settle(validator: diagnostics.Validator) -> None:
    while any(not t.done() for t in validator.tasks.values()):
        await asyncio.sleep(0.01)


async def test_edits_during_validation_are_coalesced(slow_analyse):
    server = StubServer()
    validator = diagnostics.Validator(server)
    uri = "file:///d.hwf.json"
    server.designs.add(uri)
    server.texts[uri] = (1, "{")
    validator.schedule(uri)
    await asyncio.sleep(0.01)  # validation of v1 is running
    for version in range(2, 12):
        server.texts[uri] = (version, "{" + " " * version)
        validator.schedule(uri)
    await settle(validator)
    assert slow_analyse == [1, 11]  # v2..v10 were never validated
    assert [v for _, v, _ in server.published] == [11]  # v1 was stale when it finished


async def test_nothing_after_close_and_cleared_when_no_longer_a_design(slow_analyse):
    server = StubServer()
    validator = diagnostics.Validator(server)
    uri = "file:///e.hwf.json"
    server.designs.add(uri)
    server.texts[uri] = (1, "{")
    validator.schedule(uri)
    await settle(validator)
    assert server.published == [(uri, 1, 2)]
    server.designs.clear()  # settings changed: not a design any more
    server.texts[uri] = (2, "{}")
    validator.schedule(uri)
    await settle(validator)
    assert server.published[-1] == (uri, None, 0)
    server.designs.add(uri)
    validator.schedule(uri)
    await asyncio.sleep(0.01)
    del server.texts[uri]
    validator.closed(uri)
    await settle(validator)
    assert server.published[-1] == (uri, None, 0)


async def test_an_older_version_is_never_published_after_a_newer_one(slow_analyse):
    server = StubServer()
    validator = diagnostics.Validator(server)
    uri = "file:///f.hwf.json"
    server.designs.add(uri)
    server.texts[uri] = (5, "{}")
    validator.schedule(uri)
    await settle(validator)
    server.texts[uri] = (3, "{")  # a client that goes backwards
    validator.schedule(uri)
    await settle(validator)
    assert [v for _, v, _ in server.published] == [5]


class ChangingRuns:
    """A fed runs index whose newest run of every design is `run`, as the watcher left it."""

    def __init__(self) -> None:
        self.run: RunInfo | None = None

    def newest(self, design_name):
        return self.run


async def test_a_check_in_flight_when_the_runs_change_is_made_again(slow_analyse):
    """The worker read the runs just before the watcher took in a new run: that check is
    published, then made again, so hints and lenses do not keep the older run."""
    uri = "file:///runs.hwf.json"
    server = StubServer()
    server.runs = ChangingRuns()
    validator = diagnostics.Validator(server)
    server.designs.add(uri)
    server.texts[uri] = (1, json.dumps({"name": "d", "nodes": [{"id": "t", "type": "trigger"}]}))
    validator.schedule(uri)
    await asyncio.sleep(0.01)  # the check is on the worker, its runs read
    server.runs.run = RunInfo.from_state({"run_id": "r1", "name": "d", "status": "failed"},
                                         "/runs/r1.json")
    validator.runs_changed()  # what the watcher's change does, on the loop
    await settle(validator)
    assert slow_analyse == [1, 1]
    latest = server.analyses[uri]
    assert latest.run is server.runs.run and not latest.stale
    assert [v for _, v, _ in server.published] == [1, 1]
