"""Protocol abuse over raw stdio: every request answered, the server never dies.

pygls 2.1 alone leaves a request with invalid params unanswered (it fails
inside json.loads' object_hook); hwf_lsp.server.protocol.HwfProtocol answers
-32602 with the request's id.  These tests send what no well-behaved client
sends: wrong params for every method we register, unknown methods, malformed
frames and ids, edits out of range, changes to documents never opened,
requests after shutdown, a 20 MB didOpen — and random edit scripts
(Hypothesis) whose final diagnostics must match those the same server
publishes for the client's final text sent whole.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lsprotocol import types
from oracle import lsp_lines, utf16_length
from rawlsp import RawLsp, frame, full_change_params, open_params, position_params

from hwf_lsp.analysis.findings import check_text, finding_to_contract
from hwf_lsp.jsontext.positions import LineIndex
from hwf_lsp.server.server import build_server

REPO = Path(__file__).resolve().parents[2]
INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32600, -32601, -32602, -32603
SOAK = os.environ.get("HWF_SOAK") == "1"
FUZZ_TIMEOUT_S = 3600 if SOAK else 600
"""The random edit scripts run the profile's budget of examples; this only bounds a hang."""
HELLO = (REPO / "examples" / "hello-world.hwf.json").read_text(encoding="utf-8")


def _registered() -> tuple[list[str], list[str]]:
    """(request methods, notification methods) our server registers, with typed params."""
    server = build_server()
    methods = set(server.protocol.fm.features) | set(server.protocol.fm.builtin_features)
    requests, notifications = [], []
    for method in sorted(methods):
        entry = types.METHOD_TO_TYPES.get(method)
        if entry is None or entry[2] is None:  # no params type (shutdown, exit)
            continue
        message_type = entry[0]
        (requests if "id" in {a.name for a in message_type.__attrs_attrs__}
         else notifications).append(method)
    return requests, notifications


REQUESTS, NOTIFICATIONS = _registered()
WRONG_SHAPES: list[Any] = [None, [], 5, "text", True, [{"textDocument": {"uri": "x"}}]]
WRONG_FIELDS: list[Any] = [
    {},
    {"textDocument": 5, "position": "here"},
    {"textDocument": {"uri": 5}, "position": {"line": -1, "character": "a"}},
    {"textDocument": {"uri": "file:///x.hwf.json"}, "position": {"line": 2**40, "character": 0}},
]


@pytest.fixture(scope="module")
def workspace() -> Path:
    return Path(tempfile.mkdtemp(prefix="hwf-abuse-ws-"))


def _server(workspace: Path) -> RawLsp:
    home = tempfile.mkdtemp(prefix="hwf-abuse-home-")
    client = RawLsp(env={**os.environ, "HERMES_HOME": home}, cwd=workspace)
    client.initialize(workspace)
    return client


@pytest.fixture(scope="module")
def server(workspace: Path):
    client = _server(workspace)
    yield client
    assert client.alive(), client.stderr_tail()
    assert client.close() == 0


def _ping(server: RawLsp) -> None:
    """The server is alive and answers a plain request."""
    response = server.request("workspace/symbol", {"query": ""}, timeout=60)
    assert "result" in response, response


def test_the_suite_covers_the_registered_methods() -> None:
    assert {"textDocument/completion", "textDocument/hover", "initialize",
            "workspace/executeCommand"} <= set(REQUESTS)
    assert {"textDocument/didOpen", "textDocument/didChange"} <= set(NOTIFICATIONS)


PLAIN_PYGLS = """
from lsprotocol import types
from pygls.lsp.server import LanguageServer
server = LanguageServer("plain", "0")
@server.feature(types.TEXT_DOCUMENT_HOVER)
def hover(params):
    return None
server.start_io()
"""


def test_why_protocol_py_exists_plain_pygls_never_answers_invalid_params(
    server: RawLsp, workspace: Path
) -> None:
    """pygls 2.1 alone: the request is lost.  Ours: -32602.  (If pygls ever answers,
    this fails, and HwfProtocol's structuring override can be retired.)"""
    bad = {"textDocument": 5}
    plain = RawLsp(argv=[sys.executable, "-c", PLAIN_PYGLS], cwd=workspace)
    try:
        plain.initialize(workspace)
        lost = plain.request_nowait("textDocument/hover", bad)
        with pytest.raises(AssertionError, match="no response"):
            plain.wait_response(lost, timeout=3)
        assert plain.alive()
    finally:
        plain.close()
    assert server.request("textDocument/hover", bad)["error"]["code"] == INVALID_PARAMS


@pytest.mark.parametrize("method", REQUESTS)
def test_invalid_params_get_32602_with_the_request_id(server: RawLsp, method: str) -> None:
    # this server is initialized: a second `initialize` is refused as such (-32600) whatever
    # its params (test_server_refusals.test_a_second_initialize_is_refused)
    refusals = (INVALID_PARAMS, -32600) if method == "initialize" else (INVALID_PARAMS,)
    for number, params in enumerate(WRONG_SHAPES):
        msg_id = f"{method}#{number}"
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": msg_id, "method": method}
        if params is not None:
            message["params"] = params
        server.send(message)
        response = server.wait_response(msg_id)
        assert response.get("id") == msg_id
        assert response.get("error", {}).get("code") in refusals, (params, response)
        assert method in response["error"]["message"]
    for number, params in enumerate(WRONG_FIELDS):
        response = server.request(method, params, msg_id=number + 1000)
        assert response["id"] == number + 1000
        if "error" in response:  # some methods accept sparse params; none may crash
            assert response["error"]["code"] in (*refusals, -32803), response
    _ping(server)


@pytest.mark.parametrize("method", NOTIFICATIONS)
def test_notifications_with_invalid_params_are_dropped(server: RawLsp, method: str) -> None:
    for params in [*WRONG_SHAPES, *WRONG_FIELDS]:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        server.send(message)
    _ping(server)


@pytest.mark.parametrize("message, code", [
    ({"jsonrpc": "2.0", "id": 1, "method": "no/such/method", "params": {}}, METHOD_NOT_FOUND),
    ({"jsonrpc": "2.0", "id": "s", "method": "textDocument/unknown"}, METHOD_NOT_FOUND),
    ({"jsonrpc": "1.0", "id": 3, "method": "textDocument/hover"}, INVALID_REQUEST),
    ({"id": 4, "method": "textDocument/hover"}, INVALID_REQUEST),
    ({"jsonrpc": "2.0", "id": 5, "method": 17}, INVALID_REQUEST),
    ({"jsonrpc": "2.0", "id": 6, "method": None}, INVALID_REQUEST),
])
def test_malformed_requests_are_answered_with_their_id(server: RawLsp, message: dict,
                                                       code: int) -> None:
    server.send(message)
    response = server.wait_response(message["id"])
    assert response["error"]["code"] == code, response
    _ping(server)


@pytest.mark.parametrize("body", [
    b"[1, 2]", b"[]", b"42", b'"text"', b"null",
    b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "textDocument/hover"}',
    b'{"jsonrpc": "2.0", "id": 1.5, "method": "textDocument/hover"}',
    b'{"jsonrpc": "2.0", "id": true, "method": "textDocument/hover"}',
    b'{"jsonrpc": "2.0", "id": null, "method": "textDocument/hover"}',
])
def test_unanswerable_ids_get_an_error_with_id_null(server: RawLsp, body: bytes) -> None:
    server.send_bytes(frame(body))
    response = server.wait_response(None)
    assert response["error"]["code"] == INVALID_REQUEST and "id" in response, response
    _ping(server)


@pytest.mark.parametrize("junk", [
    frame(b"{not json"),
    frame(b'{"jsonrpc": "2.0", "id": 1, "method": "x", "params": "\xff\xfe"}'),
    frame(b"\xef\xbb\xbf{}"),
    frame(b"[" * 100_000 + b"]" * 100_000),
    frame(b""),
    b"Content-Type: application/json\r\n\r\n{}\r\n",
    b"Content-Length: -5\r\n\r\n",
    b"Content-Length: abc\r\n\r\n",
    b"Content-Length: 5\r\n\r\n{\"jsonrpc\": 2}\r\n",  # shorter than the body: the rest is junk
    b"garbage line\r\n\r\n",
    b"\x00\x01\x02\r\n",
], ids=lambda junk: repr(junk[:30]))
def test_malformed_frames_are_survived(server: RawLsp, junk: bytes) -> None:
    server.send_bytes(junk)
    _ping(server)


@pytest.mark.parametrize("method", ["no/such/notification", "$/unknown", "$/cancelRequest",
                                    "$/progress", "textDocument/willSave"])
def test_unknown_or_odd_notifications_are_ignored(server: RawLsp, method: str) -> None:
    server.notify(method, {"id": "never-sent", "anything": [1, 2, 3]})
    server.notify(method)
    _ping(server)


def _uri(workspace: Path, name: str) -> str:
    return (workspace / f"{name}.hwf.json").as_uri()


def _published(server: RawLsp, uri: str, version: int, timeout: float = 60) -> list[dict]:
    message = server.wait_notification(
        "textDocument/publishDiagnostics",
        lambda p: p["uri"] == uri and p.get("version") == version, timeout)
    return message["params"]["diagnostics"]


def _expected_errors(text: str) -> list[tuple]:
    _, findings = check_text(text)
    index = LineIndex(text)
    out = []
    for finding in findings:
        if finding.severity != "error":
            continue
        rng = finding_to_contract(finding, index)["range"]
        out.append((rng["start"]["line"], rng["start"]["character"], rng["end"]["line"],
                    rng["end"]["character"], finding.msg))
    return sorted(out)


def _actual_errors(diagnostics: list[dict]) -> list[tuple]:
    return sorted((d["range"]["start"]["line"], d["range"]["start"]["character"],
                   d["range"]["end"]["line"], d["range"]["end"]["character"], d["message"])
                  for d in diagnostics if d.get("severity", 1) == 1)


def _edit(start: tuple[int, int], end: tuple[int, int], text: str) -> dict:
    return {"range": {"start": {"line": start[0], "character": start[1]},
                      "end": {"line": end[0], "character": end[1]}}, "text": text}


OUT_OF_RANGE_EDITS = {
    "line far past the end": [_edit((10**6, 0), (10**6, 5), "x")],
    "character far past the line": [_edit((1, 10**6), (1, 10**6), "x")],
    "huge numbers": [_edit((2**31 - 1, 2**31 - 1), (2**31 - 1, 2**31 - 1), "x")],
    "start after end": [_edit((3, 4), (1, 0), "swapped")],
    "range past the end, replacing": [_edit((0, 0), (10**6, 10**6), "{}")],
    "negative line (invalid: dropped)": [_edit((-1, 0), (0, 0), "x")],
    "inside a surrogate pair": [_edit((0, 1), (0, 2), "y")],
    "between CR and LF": [_edit((0, 2), (0, 3), "z")],
    "many edits, some bad": [_edit((0, 0), (0, 0), "a"), _edit((9**9, 0), (9**9, 1), "b"),
                             _edit((0, 1), (0, 0), "c")],
    "text not a string (invalid: dropped)": [{"range": _edit((0, 0), (0, 0), "")["range"],
                                              "text": 5}],
}


@pytest.mark.parametrize("label", list(OUT_OF_RANGE_EDITS))
def test_out_of_range_edits_leave_a_live_consistent_document(server: RawLsp, workspace: Path,
                                                              label: str) -> None:
    uri = _uri(workspace, "edits-" + label.replace(" ", "-"))
    text = "\U0001f600\r\n" + HELLO if "surrogate" in label or "CR" in label else HELLO
    server.notify("textDocument/didOpen", open_params(uri, text))
    _published(server, uri, 1)
    server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                             "contentChanges": OUT_OF_RANGE_EDITS[label]})
    for request in ("textDocument/hover", "textDocument/completion"):
        assert "result" in server.request(request, position_params(uri, 1, 3))
    assert "result" in server.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})
    # a full resync puts the server back on the client's text exactly
    server.notify("textDocument/didChange", full_change_params(uri, HELLO, 3))
    assert _actual_errors(_published(server, uri, 3)) == _expected_errors(HELLO) == []
    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})


def test_changes_and_requests_for_never_opened_documents(server: RawLsp, workspace: Path) -> None:
    uri = _uri(workspace, "never-opened")
    server.notify("textDocument/didChange", full_change_params(uri, "{", 7))
    server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 8},
                                             "contentChanges": [_edit((0, 0), (0, 1), "x")]})
    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    server.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
    for method in ("textDocument/hover", "textDocument/completion", "textDocument/definition",
                   "textDocument/references", "textDocument/prepareRename"):
        params = position_params(uri, 0, 0)
        if method == "textDocument/references":
            params["context"] = {"includeDeclaration": True}
        assert "result" in server.request(method, params), method
    for method in ("textDocument/documentSymbol", "textDocument/codeLens",
                   "textDocument/inlayHint", "textDocument/codeAction"):
        params: dict[str, Any] = {"textDocument": {"uri": uri}}
        if method != "textDocument/documentSymbol" and method != "textDocument/codeLens":
            params["range"] = _edit((0, 0), (0, 0), "")["range"]
        if method == "textDocument/codeAction":
            params["context"] = {"diagnostics": []}
        assert "result" in server.request(method, params), method
    _ping(server)


def test_a_20_mb_did_open_is_handled(server: RawLsp, workspace: Path) -> None:
    uri = _uri(workspace, "twenty-mb")
    big = json.dumps({"name": "big", "nodes": [
        {"id": "t", "type": "trigger"}, {"id": "n", "type": "note", "text": "x" * 20_000_000}]})
    started = time.monotonic()
    server.notify("textDocument/didOpen", open_params(uri, big))
    assert "result" in server.request("textDocument/hover", position_params(uri, 0, 5), timeout=120)
    _published(server, uri, 1, timeout=180)
    print(f"\n20 MB didOpen: hover answered and diagnostics published in "
          f"{time.monotonic() - started:.1f} s")
    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    _ping(server)


def test_huge_content_length_does_not_kill_the_server(workspace: Path) -> None:
    """Was BUG-H9-2: pygls preallocated the body (MemoryError, exit); hwf_lsp/server/framing.py."""
    client = _server(workspace)
    try:
        client.send_bytes(b"Content-Length: 999999999999\r\n\r\n{}")
        deadline = time.monotonic() + 3
        while client.alive() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert client.alive(), client.stderr_tail()
    finally:  # it now waits for 10^12 bytes that never come: no shutdown can reach it
        client.proc.kill()
        client.proc.wait()
        client.close()


def test_requests_before_initialize_get_32002(workspace: Path) -> None:
    client = RawLsp(cwd=workspace)
    try:
        response = client.request("textDocument/hover", position_params(_uri(workspace, "x")))
        assert response["error"]["code"] == -32002, response
        client.notify("textDocument/didOpen", open_params(_uri(workspace, "x"), "{}"))
        client.initialize(workspace)
        _ping(client)
    finally:
        client.close()


def test_requests_after_shutdown_get_32600_and_exit_ends_the_process(workspace: Path) -> None:
    client = _server(workspace)
    assert client.request("shutdown")["result"] is None
    for method, params in (("textDocument/hover", position_params(_uri(workspace, "x"))),
                           ("workspace/symbol", {"query": ""}), ("shutdown", None),
                           ("no/such", {})):
        response = client.request(method, params)
        assert response["error"]["code"] == INVALID_REQUEST, response
    client.notify("textDocument/didOpen", open_params(_uri(workspace, "late"), "{}"))
    client.notify("exit")
    assert client.proc.wait(timeout=30) == 0
    client.close()


def test_exit_without_shutdown_exits_with_1(workspace: Path) -> None:
    """Was BUG-H9-3: pygls swallows the SystemExit(1); main returns protocol.exit_code."""
    client = _server(workspace)
    client.notify("exit")
    assert client.proc.wait(timeout=30) == 1
    client.close()


# --- random edit scripts (Hypothesis) --------------------------------------------------

ALPHABET = st.sampled_from(list('{}[]:,"\\ abc019-.etrufnl') + ["\n", "\r\n", "\r", "\t",
                                                                 "\U0001f600", "é", "\u2028",
                                                                 '"id"', '"after": ["', "\x00"])
EXAMPLES = [HELLO, (REPO / "examples" / "review-flow.hwf.json").read_text(encoding="utf-8"), ""]


@st.composite
def edit_scripts(draw) -> tuple[str, list[tuple[float, float, str]]]:
    """A start text and edits as (start fraction, length fraction, inserted text)."""
    start = draw(st.sampled_from(EXAMPLES))
    edits = draw(st.lists(st.tuples(
        st.floats(0, 1), st.floats(0, 0.2),
        st.lists(ALPHABET, max_size=8).map("".join)), min_size=1, max_size=25))
    return start, edits


def _position(text: str, offset: int) -> dict:
    lines = lsp_lines(text[:offset])
    return {"line": len(lines) - 1, "character": utf16_length(lines[-1])}


def _safe_offset(text: str, offset: int) -> int:
    """LSP cannot address the point between CR and LF; step back before the CR."""
    if 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n":
        return offset - 1
    return offset


def _play(server: RawLsp, uri: str, script: tuple[str, list]) -> str:
    text, edits = script
    server.notify("textDocument/didOpen", open_params(uri, text))
    version = 1
    for start_fraction, length_fraction, insert in edits:
        start = _safe_offset(text, int(start_fraction * len(text)))
        end = _safe_offset(text, min(len(text), start + int(length_fraction * len(text))))
        change = {"range": {"start": _position(text, start), "end": _position(text, end)},
                  "text": insert}
        text = text[:start] + insert + text[end:]
        version += 1
        server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                 "contentChanges": [change]})
    diagnostics = _published(server, uri, version)
    server.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    # the same server, given the final text whole, must say exactly the same: the
    # incremental edits left it on the text the client has (comparing with the server
    # itself, not this process's checker, keeps the test about sync, not versions)
    whole = uri.replace(".hwf.json", "-whole.hwf.json")
    server.notify("textDocument/didOpen", open_params(whole, text))
    expected = _published(server, whole, 1)
    server.notify("textDocument/didClose", {"textDocument": {"uri": whole}})
    assert _actual_errors(diagnostics) == _actual_errors(expected), text
    return text


@pytest.mark.timeout(FUZZ_TIMEOUT_S)
def test_random_edit_scripts_keep_server_and_client_in_step(server: RawLsp,
                                                            workspace: Path) -> None:
    """As many scripts as the Hypothesis profile's budget (tests/conftest.py: 100 under
    `make test`, 2000 under `make soak`)."""
    played = {"scripts": 0, "edits": 0}
    budget = settings().max_examples
    started = time.monotonic()

    @settings(deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(script=edit_scripts())
    def one(script: tuple[str, list]) -> None:
        played["scripts"] += 1
        played["edits"] += len(script[1])
        _play(server, _uri(workspace, f"fuzz-{played['scripts']}"), script)

    one()
    print(f"\nrandom edit scripts: {played['scripts']} scripts, {played['edits']} edits "
          f"in {time.monotonic() - started:.1f} s")
    assert played["scripts"] >= min(budget, 20)
    _ping(server)


