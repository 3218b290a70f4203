"""The dashboard routes against clients that misbehave (issue 45, B8, B9), through Hermes'
own web server app (the `web` fixture of test_dashboard.py).

- B8: a client that disconnects in the middle of its body leaves no `ClientDisconnect`
  traceback in the server's log (was: one per client, 123 blocks for 40 slow clients).
- B9: a lone surrogate in an edit's `value` (or the draft `text`) is a 400 naming the
  argument (was: 422 with a codec message).
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest
import test_dashboard
from designs import review
from test_dashboard import BASE, saved

web = test_dashboard.web  # the shared fixtures: Hermes' app with the tab mounted
http = test_dashboard.http


def _scope(web: Any, path: str, length: int) -> dict[str, Any]:
    headers = [(b"content-type", b"application/json"),
               (b"content-length", str(length).encode()),
               (b"x-hermes-session-token", web._SESSION_TOKEN.encode()),
               (b"host", b"127.0.0.1")]
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
            "method": "POST", "scheme": "http", "path": path, "raw_path": path.encode(),
            "query_string": b"", "root_path": "", "headers": headers,
            "client": ("127.0.0.1", 50000), "server": ("127.0.0.1", 9119)}


async def _disconnecting_client(web: Any, path: str) -> list[dict[str, Any]]:
    """POST half a body, then disconnect; what the app sent back."""
    messages = iter([{"type": "http.request", "body": b'{"edit": "setF', "more_body": True},
                     {"type": "http.disconnect"}])
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        try:
            return next(messages)
        except StopIteration:
            await asyncio.sleep(3600)
            raise

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await web.app(_scope(web, path, 4096), receive, send)
    return sent


@pytest.mark.parametrize("route", ["/designs/review/edit", "/validate", "/runs/abc/cancel"])
def test_a_client_gone_mid_body_leaves_no_traceback(web, hermes_home: Path, route: str,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    saved(hermes_home, review())
    with caplog.at_level(logging.DEBUG):
        asyncio.run(_disconnecting_client(web, BASE + route))  # raises nothing
    logged = "\n".join(f"{r.getMessage()} {r.exc_text or ''} {r.exc_info or ''}"
                       for r in caplog.records)
    assert "ClientDisconnect" not in logged and "Traceback" not in logged


SURROGATE = "\ud83d"


@pytest.mark.parametrize(("body", "argument"), [
    ({"edit": "setField", "id": "draft", "field": "title", "value": f"a{SURROGATE}"},
     "value"),
    ({"edit": "setField", "id": "draft", "field": "title", "value": {"k": [SURROGATE]}},
     "value"),
    ({"edit": "renameNode", "id": "draft", "newId": f"x{SURROGATE}"}, "newId"),
])
def test_a_lone_surrogate_in_an_edit_is_a_400_naming_it(http, hermes_home: Path,
                                                        body: dict, argument: str) -> None:
    saved(hermes_home, review())
    raw = json.dumps(body)  # ensure_ascii: the surrogate travels as its escape
    answer = http.post(f"{BASE}/designs/review/edit", content=raw,
                       headers={"content-type": "application/json"})
    assert answer.status_code == 400, answer.text
    assert answer.json()["argument"] == argument
    assert "surrogate" in answer.json()["error"]


def test_a_lone_surrogate_in_the_draft_text_is_a_400_naming_it(http, hermes_home: Path) -> None:
    saved(hermes_home, review())
    text = json.dumps(review()).replace('"review"', f'"rev{SURROGATE}"', 1)
    answer = http.post(f"{BASE}/designs/review/edit",
                       content=json.dumps({"text": text, "edit": "setField", "id": "draft",
                                           "field": "title", "value": "x"}),
                       headers={"content-type": "application/json"})
    assert answer.status_code == 400, answer.text
    assert answer.json()["argument"] == "text"
