"""The Validator's scheduling, in process: coalescing, ordering, closing, leaving designs."""

from __future__ import annotations

import asyncio
import json
import time
from types import SimpleNamespace

import pytest

from hwf_lsp.analysis.runs_index import RunInfo
from hwf_lsp.server.documents import analyse as real_analyse
from hwf_lsp.server.documents import breaks_the_json
from hwf_lsp.server.features import diagnostics
from hwf_lsp.server.protocol import TextEdit


class StubProtocol:
    edit: TextEdit | None = None

    def last_edit(self, uri):
        return self.edit


class StubServer:
    """Just what the Validator uses: open texts, design check, cache, publishing."""

    def __init__(self) -> None:
        self.protocol = StubProtocol()
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

    def remember(self, result):
        self.analyses[result.uri] = result

    def forget(self, uri):
        self.analyses.pop(uri, None)

    def text_document_publish_diagnostics(self, params):
        self.published.append((params.uri, params.version, len(params.diagnostics)))


class Calls(list):
    """The versions `slow_analyse` checked; `reused`: how many scans each was handed
    (analysis/scan_reuse.py)."""

    def __init__(self) -> None:
        super().__init__()
        self.reused: list[int] = []


@pytest.fixture
def slow_analyse(monkeypatch):
    calls = Calls()

    def slow(uri, version, text, runs=None, **kw):
        calls.append(version)
        reuse = kw.get("reuse")  # a function when the last parse was of valid JSON
        calls.reused.append(len((reuse() if callable(reuse) else reuse) or {}))
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


async def checked_design(uri: str, nodes: list[dict]):
    """A validator over one open design (version 1), checked once; (server, it, text)."""
    server = StubServer()
    validator = diagnostics.Validator(server)
    server.designs.add(uri)
    text = json.dumps({"name": "d", "nodes": nodes})
    server.texts[uri] = (1, text)
    validator.schedule(uri)
    await settle(validator)
    return server, validator, text


async def keystroke(server, validator, uri: str, text: str, version: int, start: int,
                    end: int, char: str) -> str:
    """One didChange (text[start:end] became `char`), checked; the new text."""
    new = text[:start] + char + text[end:]
    server.texts[uri] = (version, new)
    server.protocol.edit = TextEdit(text, new, version, start, end, char)
    validator.schedule(uri)
    await settle(validator)
    return new


async def test_a_free_text_keystroke_is_carried_over_and_an_id_keystroke_checked(slow_analyse):
    uri = "file:///g.hwf.json"
    server, validator, text = await checked_design(uri, [
        {"id": "t", "type": "trigger"},
        {"id": "a", "type": "agent", "after": ["t", "ghost"], "prompt": "Write it"}])
    for version, needle, char in ((2, "Write", "x"), (3, '"t"', "b")):  # then t's id
        at = text.index(needle) + 1
        text = await keystroke(server, validator, uri, text, version, at, at, char)
    assert slow_analyse == [1, 3]  # the prompt keystroke took no check
    assert [(v, n) for _, v, n in server.published] == [(1, 1), (2, 1), (3, 2)]


async def test_a_keystroke_in_broken_json_reuses_the_last_parse(slow_analyse):
    """The second keystroke in broken JSON hands the check the first one's scans, moved."""
    uri = "file:///h.hwf.json"
    server, validator, text = await checked_design(uri, [
        {"id": "t", "type": "trigger"},
        {"id": "a", "type": "agent", "after": ["t"], "prompt": "Write it"},
        {"id": "b", "type": "agent", "after": ["a"], "prompt": "Check it"}])
    at = text.index('"id": "a"') + len('"id": "a"')  # the comma after a's id
    for version, start, end, char in ((2, at, at + 1, " x"), (3, at, at, "y")):
        text = await keystroke(server, validator, uri, text, version, start, end, char)
    assert slow_analyse == [1, 2, 3]
    # valid JSON scans nothing; the first break scanned the trigger and b (a failed);
    # the keystroke after it in a's object reuses them
    assert slow_analyse.reused[:2] == [0, 0] and slow_analyse.reused[2] >= 2
    assert [(v, n) for _, v, n in server.published][-1][0] == 3


async def test_the_first_keystroke_that_breaks_a_big_design_reuses_its_nodes(slow_analyse):
    """A valid text scanned nothing, but its `nodes` array's items are known: the keystroke
    that breaks one node hands the parse every other node (scan_reuse.py, third rule)."""
    uri = "file:///big.hwf.json"
    nodes = [{"id": "t", "type": "trigger"}] + [
        {"id": f"a{i}", "type": "agent", "after": ["t"], "prompt": "Write it"}
        for i in range(70)]
    server, validator, text = await checked_design(uri, nodes)
    at = text.index('"after": ["t"]', len(text) // 2) + len('"after": ["t"')
    text = await keystroke(server, validator, uri, text, 2, at, at, ",")
    assert slow_analyse == [1, 2]
    assert slow_analyse.reused == [0, 71]  # the 70 nodes it did not touch, and the array
    # the trailing comma, and the rulebook's "at most 50 nodes" still found
    assert [(v, n) for _, v, n in server.published] == [(1, 1), (2, 2)]


@pytest.mark.parametrize(("typed", "checked"), [
    (",", [1]),  # a trigger character: the completion's parse comes first, and is kept
    ("x", [1, 2]),  # a letter: no completion follows, the check starts at once
])
async def test_a_trigger_character_on_a_big_design_lets_the_completion_go_first(
        slow_analyse, typed, checked):
    uri = "file:///wide.hwf.json"
    nodes = [{"id": "t", "type": "trigger"}] + [
        {"id": f"a{i}", "type": "agent", "after": ["t"], "prompt": "Write it. " * 100}
        for i in range(100)]
    server, validator, text = await checked_design(uri, nodes)
    assert len(text) >= diagnostics.COMPLETION_FIRST_FROM_CHARS
    at = text.index('"after": ["t"]', len(text) // 2) + len('"after": ["t"')
    new = text[:at] + typed + text[at:]

    def completion_request() -> None:  # what on_design does: parse, no check, remember
        server.remember(real_analyse(uri, 2, new, check=False))

    server.texts[uri] = (2, new)
    server.protocol.edit = TextEdit(text, new, 2, at, at, typed)
    validator.schedule(uri)
    asyncio.get_running_loop().call_soon(completion_request)  # read after the didChange
    await settle(validator)
    assert slow_analyse == checked
    assert [v for _, v, _ in server.published] == [1, 2]


class ChangingRuns:
    """A fed runs index whose newest run of every design is `run`, as the watcher left it."""

    def __init__(self) -> None:
        self.run: RunInfo | None = None

    def refreshing(self) -> ChangingRuns:
        return self

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


VALID = json.dumps({"name": "d", "nodes": [{"id": "t", "type": "trigger"},
                                           {"id": "a", "after": ["t"], "prompt": "Go, [now]"}]},
                   indent=2)


@pytest.mark.parametrize(("needle", "skip", "deleted", "typed", "breaks"), [
    ('"t"\n', 3, 0, ",", True),           # a `,` after the list's last id
    ('"t"\n', 3, 0, '"', True),           # a quote opening a string where none may be
    ('"a",', 3, 1, "", True),             # the `,` after a's id deleted
    ("Go, [now]", 3, 0, ",", False),      # a `,` inside a prompt
    ("Go, [now]", 2, 1, "", False),       # the prompt's `,` deleted
    ('"t"\n', 3, 0, " ", False),          # a blank: nothing structural
    ('"t"\n', 1, 0, "x", False),          # a letter inside an id
])
def test_an_edit_that_surely_breaks_a_valid_text_is_parsed_tolerantly_at_once(
        needle, skip, deleted, typed, breaks):
    at = VALID.index(needle) + skip
    edit = TextEdit(VALID, VALID[:at] + typed + VALID[at + deleted:], 2, at, at + deleted,
                    typed)
    assert breaks_the_json(VALID, edit) is breaks
