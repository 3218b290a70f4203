"""Ask the real language server (`python -m hwf_lsp`, stdio) one command, as an editor would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, BinaryIO


def _send(stream: BinaryIO, message: dict[str, Any]) -> None:
    body = json.dumps(message).encode()
    stream.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stream.flush()


def _read(stream: BinaryIO) -> dict[str, Any]:
    length = 0
    while (line := stream.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(stream.read(length))


def execute_command(home: Path, command: str, arguments: list[Any]) -> Any:
    """initialize (hermesHome = `home`) → workspace/executeCommand → shutdown/exit; its result."""
    proc = subprocess.Popen([sys.executable, "-m", "hwf_lsp"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        requests = [
            ("initialize", {"processId": None, "rootUri": None, "capabilities": {},
                            "initializationOptions": {"settings": {"hermesHome": str(home)}}}),
            ("workspace/executeCommand", {"command": command, "arguments": arguments}),
            ("shutdown", None),
        ]
        results = []
        for number, (method, params) in enumerate(requests, 1):
            _send(proc.stdin, {"jsonrpc": "2.0", "id": number, "method": method,
                               "params": params})
            while True:
                message = _read(proc.stdout)
                if "method" in message and "id" in message:  # the server asks: answer null
                    _send(proc.stdin, {"jsonrpc": "2.0", "id": message["id"], "result": None})
                elif message.get("id") == number:
                    break
            assert "error" not in message, message
            results.append(message.get("result"))
            if method == "initialize":
                _send(proc.stdin, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
        _send(proc.stdin, {"jsonrpc": "2.0", "method": "exit"})
        proc.wait(timeout=30)
        return results[1]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
