"""The LSP measurements: open/change → diagnostics, completion, hover, typing, cold start, RSS.

Every function takes a started `LspClient` (or starts its own) and returns plain dicts, so the
report can put any server beside any other.  Latency is measured in the client process from
just before the frame is written to just after the answer is read.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.gen import Doc, insert_char, position_of, replace_char
from bench.lsp_client import LspClient, LspError
from bench.servers import PULL, PUSH_VERSIONED, ServerSpec, client_capabilities
from bench.stats import summary

WAIT_S = 60.0
"""Longest wait for one answer; past it the sample counts as a failure."""


# --- sessions -----------------------------------------------------------------


async def start_session(spec: ServerSpec, root: Path) -> tuple[LspClient, dict[str, Any]]:
    """Start a server, initialize it, send its settings; returns (client, initialize result)."""
    client = LspClient(spec.argv, cwd=str(root), configuration=spec.configuration)
    await client.start()
    result = await client.request("initialize", {
        "processId": None,
        "rootUri": root.as_uri(),
        "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
        "capabilities": client_capabilities(spec.capabilities),
        "initializationOptions": {"provideFormatter": False},
    }, timeout=WAIT_S)
    await client.notify("initialized", {})
    if spec.settings is not None:
        await client.notify("workspace/didChangeConfiguration", {"settings": spec.settings})
    return client, result


def sync_kind(initialize_result: dict[str, Any]) -> int:
    """1 = full, 2 = incremental (the number or the options form)."""
    sync = (initialize_result or {}).get("capabilities", {}).get("textDocumentSync", 1)
    if isinstance(sync, dict):
        return int(sync.get("change", 1))
    return int(sync)


class Session:
    """One server under test and the documents open in it."""

    def __init__(self, spec: ServerSpec, client: LspClient, sync: int) -> None:
        self.spec = spec
        self.client = client
        self.sync = sync
        self.versions: dict[str, int] = {}
        self.texts: dict[str, str] = {}

    # -- diagnostics after an action, however this server delivers them --
    async def _diagnostics_after(self, frame: bytes, uri: str, version: int) -> tuple[float, int]:
        """Send `frame`; seconds until the diagnostics for `version` arrive, and their count."""
        client = self.client
        if self.spec.diagnostics == PULL:
            request_id, pull = client.request_frame(
                "textDocument/diagnostic", {"textDocument": {"uri": uri}})
            future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            client._pending[request_id] = future
            started = await client.send_raw(frame)
            await client.send_raw(pull)
            try:
                result, answered = await asyncio.wait_for(future, WAIT_S)
            finally:
                client._pending.pop(request_id, None)
            return answered - started, len((result or {}).get("items") or [])
        after = client.last_seq()
        started = await client.send_raw(frame)
        wanted = version if self.spec.diagnostics == PUSH_VERSIONED else None
        publish = await client.wait_publish(uri, wanted, after, WAIT_S)
        return publish.at - started, publish.count

    async def open(self, uri: str, text: str) -> tuple[float, int]:
        self.versions[uri], self.texts[uri] = 1, text
        frame = self.client.notification_frame("textDocument/didOpen", {
            "textDocument": {"uri": uri, "languageId": "json", "version": 1, "text": text}})
        return await self._diagnostics_after(frame, uri, 1)

    async def close(self, uri: str) -> None:
        await self.client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        self.versions.pop(uri, None)
        self.texts.pop(uri, None)

    def change_frame(self, uri: str, offset: int, char: str, insert: bool,
                     full: bool = False) -> tuple[bytes, int]:
        """didChange frame of a one-character edit: a range edit, or with `full` (and always
        on full sync) the whole new text, as some clients send even to incremental servers."""
        version = self.versions[uri] + 1
        old = self.texts[uri]
        new = insert_char(old, offset, char) if insert else replace_char(old, offset, char)
        if self.sync == 2 and not full:
            start = position_of(old, offset)
            end = start if insert else {"line": start["line"], "character": start["character"] + 1}
            change = {"range": {"start": start, "end": end}, "text": char}
        else:
            change = {"text": new}
        self.versions[uri], self.texts[uri] = version, new
        frame = self.client.notification_frame("textDocument/didChange", {
            "textDocument": {"uri": uri, "version": version}, "contentChanges": [change]})
        return frame, version

    async def change(self, uri: str, offset: int, char: str,
                     full: bool = False) -> tuple[float, int]:
        frame, version = self.change_frame(uri, offset, char, insert=False, full=full)
        return await self._diagnostics_after(frame, uri, version)


# --- measurements ----------------------------------------------------------------


async def measure_open(session: Session, doc: Doc, root: Path, samples: int,
                       warmup: int) -> dict[str, Any]:
    """didOpen → diagnostics, each sample a fresh URI (then closed)."""
    began = time.perf_counter()
    times: list[float] = []
    counts: list[int] = []
    failures = 0
    for k in range(warmup + samples):
        uri = (root / f"{doc.name}.open{k}.hwf.json").as_uri()
        try:
            seconds, count = await session.open(uri, doc.text)
        except (TimeoutError, LspError):
            failures += 1
            continue
        finally:
            await session.close(uri)
        if k >= warmup:
            times.append(seconds)
            counts.append(count)
    return {**summary(times), "failures": failures, "diagnostics": max(counts, default=None),
            "wall_s": round(time.perf_counter() - began, 3)}


async def measure_change(session: Session, doc: Doc, uri: str, samples: int,
                         warmup: int, edit: str = "prompt", full: bool = False
                         ) -> dict[str, Any]:
    """didChange (one character replaced, alternating) → diagnostics of that version; the
    character is in a prompt (`edit="prompt"`), in the middle node's id (`edit="id"`) or
    where it breaks the JSON (`edit="break"`, Doc.break_edit_offset); sent as a range edit,
    or with `full` as the whole new text."""
    return (await measure_change_in_turns([(session, uri)], doc, samples, warmup, edit, full))[0]


def _turns(servers: int, rounds: int) -> Iterator[tuple[int, int]]:
    """(round, server index) of every sample: each round every server takes one, the first
    of the round rotating."""
    for k in range(rounds):
        for turn in range(servers):
            yield k, (k + turn) % servers


async def measure_change_in_turns(sessions: list[tuple[Session, str]], doc: Doc, samples: int,
                                  warmup: int, edit: str = "prompt", full: bool = False
                                  ) -> list[dict[str, Any]]:
    """measure_change for several servers at once, one row each: every round each server
    takes one sample, the first of the round rotating.  The machine's slow phases (a busy
    hypervisor steals a third of the CPU for seconds at a time) then fall on every server
    alike, and a ratio compares samples taken milliseconds apart."""
    offset = doc.offset_of(edit)
    times: list[list[float]] = [[] for _ in sessions]
    counts: list[list[int]] = [[] for _ in sessions]
    failures = [0 for _ in sessions]
    walls = [0.0 for _ in sessions]
    for k, index in _turns(len(sessions), warmup + samples):
        session, uri = sessions[index]
        began = time.perf_counter()
        try:
            seconds, count = await session.change(uri, offset, "xy"[k % 2], full)
        except (TimeoutError, LspError):
            failures[index] += 1
            continue
        finally:
            walls[index] += time.perf_counter() - began
        if k >= warmup:
            times[index].append(seconds)
            counts[index].append(count)
    return [{**summary(times[i]), "failures": failures[i],
             "diagnostics": max(counts[i], default=None), "wall_s": round(walls[i], 3)}
            for i in range(len(sessions))]


async def measure_request_in_turns(sessions: list[tuple[Session, str]], method: str,
                                   offset: int, samples: int, warmup: int
                                   ) -> list[dict[str, Any]]:
    """Latency of completion or hover at one spot of an open document, for several servers
    at once taking turns sample by sample (the first of each round rotating), as
    `measure_change_in_turns` does: a ratio then compares samples taken milliseconds apart,
    not two runs of a hundred a minute apart (one floor's p50 at 1 MB was a third of its
    p50 at 10 KB, for the same empty answer)."""
    positions = [position_of(session.texts[uri], offset) for session, uri in sessions]
    times: list[list[float]] = [[] for _ in sessions]
    failures = [0 for _ in sessions]
    answered = [0 for _ in sessions]
    for k, index in _turns(len(sessions), warmup + samples):
        session, uri = sessions[index]
        try:
            result, seconds = await session.client.timed_request(
                method, {"textDocument": {"uri": uri}, "position": positions[index]}, WAIT_S)
        except (TimeoutError, LspError):
            failures[index] += 1
            continue
        if k >= warmup:
            times[index].append(seconds)
            answered[index] += _answered(result)
    return [{**summary(times[i]), "failures": failures[i], "answered": answered[i]}
            for i in range(len(sessions))]


async def measure_request(session: Session, method: str, uri: str, offset: int,
                          samples: int, warmup: int) -> dict[str, Any]:
    """Latency of completion or hover at one spot of an open document."""
    return (await measure_request_in_turns([(session, uri)], method, offset, samples,
                                           warmup))[0]


def _answered(result: Any) -> bool:
    """Whether a completion or hover answer says something (not null, not empty)."""
    return result is not None and result != [] and result != {"items": []}


async def _timed_answers(attempt: Any, samples: int, warmup: int) -> dict[str, Any]:
    """Run `attempt(k)` warmup + samples times; latency summary, failures, non-empty answers."""
    times: list[float] = []
    failures = 0
    answered = 0
    for k in range(warmup + samples):
        try:
            result, seconds = await attempt(k)
        except (TimeoutError, LspError):
            failures += 1
            continue
        if k >= warmup:
            times.append(seconds)
            answered += _answered(result)
    return {**summary(times), "failures": failures, "answered": answered}


async def measure_request_after_edit(session: Session, method: str, doc: Doc, uri: str,
                                     offset: int, samples: int, warmup: int) -> dict[str, Any]:
    """Like measure_request, but each request follows a didChange at once (as when typing):
    the server answers from the new text, while its check of that text is under way."""
    client = session.client

    async def attempt(k: int) -> tuple[Any, float]:
        frame, version = session.change_frame(uri, doc.edit_offset, "pq"[k % 2], insert=False)
        after = client.last_seq()
        position = position_of(session.texts[uri], offset)
        await client.send_raw(frame)
        answer = await client.timed_request(
            method, {"textDocument": {"uri": uri}, "position": position}, WAIT_S)
        if session.spec.diagnostics == PUSH_VERSIONED:
            await client.wait_publish(uri, version, after, WAIT_S)  # settle before the next
        return answer

    return await _timed_answers(attempt, samples, warmup)


async def typing_test(session: Session, doc: Doc, root: Path, keystrokes: int,
                      gap_s: float, quiet_s: float) -> dict[str, Any]:
    """`keystrokes` one-character inserts `gap_s` apart; what got published, and when."""
    uri = (root / f"{doc.name}.typing.hwf.json").as_uri()
    await session.open(uri, doc.text)
    client = session.client
    after = client.last_seq()
    start = time.perf_counter()
    last_sent = start
    final_version = session.versions[uri]
    for k in range(keystrokes):
        delay = start + k * gap_s - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        frame, final_version = session.change_frame(
            uri, doc.edit_offset + k, "abcdefghij"[k % 10], insert=True)
        last_sent = await client.send_raw(frame)
    result: dict[str, Any] = {"keystrokes": keystrokes, "gap_ms": gap_s * 1000,
                              "final_version": final_version}
    if session.spec.diagnostics == PULL:
        _, seconds = await client.timed_request(
            "textDocument/diagnostic", {"textDocument": {"uri": uri}}, WAIT_S)
        result.update(end_ms=seconds * 1000, publishes=None, note="pull: no publishes")
        await session.close(uri)
        return result
    versioned = session.spec.diagnostics == PUSH_VERSIONED
    try:
        final = await client.wait_publish(uri, final_version if versioned else None,
                                          client.last_seq() if not versioned else after, WAIT_S)
        result["end_ms"] = (final.at - last_sent) * 1000
    except TimeoutError:
        result["end_ms"] = None
    await asyncio.sleep(quiet_s)  # anything published late would be stale
    seen = [p for p in client.publishes if p.seq > after and p.uri == uri]
    versions = [p.version for p in seen]
    result["publishes"] = len(seen)
    if versioned:
        numbered = [v for v in versions if v is not None]
        increasing = all(b > a for a, b in zip(numbered, numbered[1:], strict=False))
        ends_on_final = bool(numbered) and numbered[-1] == final_version
        result.update(
            strictly_increasing=increasing,
            ends_on_final=ends_on_final,
            unversioned_publishes=len(versions) - len(numbered),
            no_stale=increasing and ends_on_final,
        )
    else:
        result["note"] = "publishes carry no version: staleness not checkable"
    await session.close(uri)
    return result


# --- fresh processes ------------------------------------------------------------


async def cold_start_once(spec: ServerSpec, root: Path, text: str) -> tuple[float, float | None]:
    """Seconds from spawning the server to its `initialize` result, and to the first
    diagnostics of `text` opened right after `initialized` (None if none came)."""
    client = LspClient(spec.argv, cwd=str(root), configuration=spec.configuration)
    await client.start()
    initialized = False
    try:
        result = await client.request("initialize", {
            "processId": None, "rootUri": root.as_uri(),
            "capabilities": client_capabilities(spec.capabilities)}, timeout=WAIT_S)
        to_initialize = time.perf_counter() - client.spawned_at
        await client.notify("initialized", {})
        initialized = True
        uri = (root / "cold-start.hwf.json").as_uri()
        with contextlib.suppress(LspError, TimeoutError, asyncio.TimeoutError):
            await Session(spec, client, sync_kind(result)).open(uri, text)
            return to_initialize, time.perf_counter() - client.spawned_at
        return to_initialize, None
    finally:
        if not initialized:
            with contextlib.suppress(OSError, LspError):  # a server that died at start-up
                await client.notify("initialized", {})
        await client.stop()


async def import_pygls_once(python: str) -> float:
    """Seconds for `python -c "import pygls.lsp.server"` from spawn to exit (the target's base)."""
    started = time.perf_counter()
    proc = await asyncio.create_subprocess_exec(python, "-c", "import pygls.lsp.server")
    await proc.wait()
    return time.perf_counter() - started


async def peak_rss_after(spec: ServerSpec, doc: Doc, root: Path) -> dict[str, Any]:
    """VmHWM of a fresh server after opening `doc` and one change to it."""
    client, result = await start_session(spec, root)
    session = Session(spec, client, sync_kind(result))
    uri = (root / f"{doc.name}.rss.hwf.json").as_uri()
    error = None
    try:
        await session.open(uri, doc.text)
        await session.change(uri, doc.edit_offset, "z")
    except (TimeoutError, LspError) as exc:
        error = f"{type(exc).__name__}: {exc}"[:200]
    rss = client.peak_rss_kb()
    with contextlib.suppress(Exception):
        await client.stop()
    return {"vmhwm_kb": rss, "error": error}
