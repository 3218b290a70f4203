"""A scripted OpenAI-compatible chat-completions server on 127.0.0.1, for offline Hermes runs.

Hermes (`hermes -z`, `hermes cron run`) talks to it as a `custom` provider. Each
request is answered by `script(messages)`: a reply is `{"content": text}` or
`{"tool_calls": [{"name": ..., "arguments": {...}}]}`. Every request is kept, so
a test can check what the agent sent (tool schemas, tool results, model).
Streaming (`"stream": true`) is answered as server-sent events.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = dict[str, Any]
Script = Callable[[list[dict[str, Any]]], Reply]


def _message(reply: Reply, index: int) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.get("content")}
    calls = reply.get("tool_calls")
    if calls:
        message["tool_calls"] = [
            {"id": f"call_{index}_{n}", "type": "function",
             "function": {"name": c["name"], "arguments": json.dumps(c.get("arguments", {}))}}
            for n, c in enumerate(calls)
        ]
    return message


class FakeOpenAI:
    def __init__(self, script: Script, model: str = "fake-model") -> None:
        self.script = script
        self.model = model
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _send_json(self, status: int, body: Any) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path.rstrip("/").endswith("/models"):
                    self._send_json(200, {"object": "list", "data": [
                        {"id": fake.model, "object": "model", "owned_by": "fake"}]})
                else:
                    self._send_json(404, {"error": {"message": "not found"}})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                request = json.loads(self.rfile.read(length) or b"{}")
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send_json(404, {"error": {"message": "not found"}})
                    return
                with fake._lock:
                    fake.requests.append(request)
                    index = len(fake.requests)
                try:
                    reply = fake.script(request.get("messages") or [])
                except Exception as exc:  # noqa: BLE001 - a broken script is a 500, visible in the test
                    self._send_json(500, {"error": {"message": f"script failed: {exc!r}"}})
                    return
                message = _message(reply, index)
                finish = "tool_calls" if message.get("tool_calls") else "stop"
                usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
                if not request.get("stream"):
                    self._send_json(200, {
                        "id": f"chatcmpl-{index}", "object": "chat.completion",
                        "created": int(time.time()), "model": fake.model,
                        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                        "usage": usage})
                    return
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                delta: dict[str, Any] = {"role": "assistant"}
                if message.get("content") is not None:
                    delta["content"] = message["content"]
                if message.get("tool_calls"):
                    delta["tool_calls"] = [{"index": n, **c}
                                           for n, c in enumerate(message["tool_calls"])]
                for chunk in (
                    {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
                    {"choices": [{"index": 0, "delta": {}, "finish_reason": finish}],
                     "usage": usage},
                ):
                    body = {"id": f"chatcmpl-{index}", "object": "chat.completion.chunk",
                            "created": int(time.time()), "model": fake.model, **chunk}
                    self.wfile.write(f"data: {json.dumps(body)}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
