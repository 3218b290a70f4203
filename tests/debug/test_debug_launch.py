"""Invalid launch arguments are a clear error (success false, message, body.error with
showUser) and create no run; malformed frames are skipped, the session goes on."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from support.dap_client import DapClient

from hwf_lsp.debug.dap_framing import FrameReader

TEST_FILE = "review-flow.hwf-test.json"

# launch arguments (DESIGN and DIR stand for the design's path and its folder) -> words
# the error message must hold
INVALID = [
    ({}, "design: required"),
    ({"design": 7}, "design: expected a string"),
    ({"design": "DIR/none.hwf.json"}, "no such file"),
    ({"design": "DIR"}, "a directory, not a regular file"),
    ({"design": "DIR/broken.json"}, "is not valid JSON"),
    ({"design": "DIR/defects.json"}, "a design with defects cannot run"),
    ({"design": "DESIGN", "stopOnEntry": "yes"}, "stopOnEntry: expected true or false"),
    ({"design": "DESIGN", "from": "nope"}, "from: 'nope' is not a step"),
    ({"design": "DESIGN", "from": "start"}, "from: 'start' is not a step"),
    ({"design": "DESIGN", "replay": "../x"}, "replay:"),
    ({"design": "DESIGN", "replay": "0123456789ab"}, "replay: no run 0123456789ab"),
    ({"design": "DESIGN", "testCase": "DIR/" + TEST_FILE}, "expected <file>.hwf-test.json#"),
    ({"design": "DESIGN", "testCase": f"DIR/{TEST_FILE}#no such case"},
     "has no case 'no such case' (its cases: 'a good draft"),
    ({"design": "DESIGN", "testCase": "DIR/missing.hwf-test.json#x"}, "no such file"),
    ({"design": "DESIGN", "testCase": f"DIR/{TEST_FILE}#a good draft, approved, is posted",
      "agentCommand": "x"}, "agentCommand: a testCase launch uses the case's mocked agents"),
    ({"design": "DESIGN", "agentCommand": "'unbalanced"}, "agentCommand:"),
    ({"design": "DESIGN", "deliveryCommand": "'unbalanced"}, "deliveryCommand:"),
]


def filled(value, design: Path):
    if isinstance(value, str):
        return value.replace("DESIGN", str(design)).replace("DIR", str(design.parent))
    return value


@pytest.fixture
def broken_designs(design: Path) -> None:
    (design.parent / "broken.json").write_text('{"name": "x", "nodes": [', encoding="utf-8")
    (design.parent / "defects.json").write_text(json.dumps(
        {"name": "x", "nodes": [{"id": "a", "type": "agent"}]}), encoding="utf-8")


@pytest.mark.parametrize(("arguments", "words"), INVALID)
def test_invalid_launch_arguments_are_a_clear_error(design: Path, dap, home: Path,
                                                    broken_designs, arguments: dict,
                                                    words: str) -> None:
    client = dap()
    response = client.start({k: filled(v, design) for k, v in arguments.items()})
    assert response["success"] is False
    assert words in response["message"], response["message"]
    assert response["message"].startswith("invalid launch argument ")
    error = response["body"]["error"]
    assert error["showUser"] is True and words in error["format"]
    assert not list((home / "workflow-runs").glob("*.json"))
    assert client.ok("threads") == {"threads": []}  # the adapter is still there


def test_malformed_frames_are_skipped(dap) -> None:
    client: DapClient = dap()
    for junk in (b"garbage line\r\n\r\n",
                 b"Content-Length: nope\r\n\r\n",
                 b"Content-Length: 5\r\n\r\n{oops",
                 b"Content-Length: 2\r\n\r\n[]",
                 b"Content-Length: 4\r\nX-Other: 1\r\n\r\nnull",
                 b'Content-Length: 49\r\n\r\n{"seq": 99, "type": "request", "command"',
                 b': "nope"}',  # one body in two writes: a request answered as unknown
                 b'Content-Length: 9\r\n\r\n{"a": "bcdef"} junk glued to the next header '):
        client.send_raw(junk)
    body = client.ok("initialize", {"adapterID": "hwf"})
    assert body["supportsConfigurationDoneRequest"] is True
    unknown = client.request("stepBack")
    assert not unknown["success"] and "does not support 'stepBack'" in unknown["message"]


CAPABILITIES = ("supportsConfigurationDoneRequest", "supportsSetVariable",
                "supportsConditionalBreakpoints", "supportsLogPoints")


def test_capabilities_and_the_initialized_event(dap) -> None:
    client = dap()
    body = client.ok("initialize", {"adapterID": "hwf"})
    assert all(body[name] is True for name in CAPABILITIES)
    client.wait_event("initialized")


# raw stream -> the messages read, in order
FRAMES = [
    (b'Content-Length: 2\r\n\r\n{}', [{}]),
    (b'\r\n\r\nContent-Length: 8\r\n\r\n{"a": 1}', [{"a": 1}]),
    (b'content-length: 8\r\n\r\n{"a": 1}Content-Length: 2\r\n\r\n{}', [{"a": 1}, {}]),
    (b'Content-Length: -3\r\n\r\nContent-Length: 2\r\n\r\n{}', [{}]),
    (b'Content-Length: 3\r\n\r\n\xff\xfe}Content-Length: 2\r\n\r\n{}', [{}]),
    (b'Content-Length: 10\r\n\r\n{}', []),  # cut short: the end
    (b'Content-Length: 1\r\n\r\n{} junk Content-Length: 2\r\n\r\n{}', [{}]),
    (b'', []),
]


@pytest.mark.parametrize(("raw", "messages"), FRAMES)
def test_frame_reader(raw: bytes, messages: list) -> None:
    reader = FrameReader(io.BytesIO(raw))
    got = []
    while (message := reader.read()) is not None:
        got.append(message)
    assert got == messages


# requests out of order, or with junk arguments -> success, or the words of the error
OUT_OF_ORDER = [
    ("threads", {}, True),
    ("stackTrace", {"threadId": 1}, "no run: launch a design first"),
    ("scopes", {"frameId": 1}, "no run"),
    ("variables", {"variablesReference": 99}, True),
    ("variables", {"variablesReference": "x"}, True),
    ("setVariable", {"variablesReference": 1, "name": "a", "value": "1"}, "no run"),
    ("continue", {"threadId": 1}, "no run"),
    ("next", {"threadId": 1}, "no run"),
    ("pause", {"threadId": 1}, "no run"),
    ("evaluate", {"expression": "answer approve"}, "no run yet"),
    ("evaluate", {"expression": "help"}, True),
    ("evaluate", {}, "evaluate needs an expression"),
    ("setBreakpoints", {"source": "junk", "breakpoints": "junk"}, True),
    ("setBreakpoints", {"source": {"path": "/nonexistent"}, "breakpoints": [{"line": "x"}]},
     True),
    ("configurationDone", {}, True),
    ("attach", {}, "does not attach"),
]


def test_requests_out_of_order_are_answered_and_the_adapter_lives(dap) -> None:
    client = dap()
    client.ok("initialize", {"adapterID": "hwf"})
    for command, arguments, want in OUT_OF_ORDER:
        response = client.request(command, arguments)
        if want is True:
            assert response["success"], (command, response)
        else:
            assert not response["success"] and want in response["message"], (command, response)
    assert client.request("disconnect")["success"]
    assert client.close() == 0
