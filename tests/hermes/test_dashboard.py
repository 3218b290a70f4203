"""The dashboard tab's routes through Hermes' own web server (hermes_cli.web_server.app),
with its session token, as the tab's fetches reach them (issue 18, item 4).

Hermes discovers the tab in `plugins/visual-workflow/dashboard/` of the home it starts
with and mounts the routes when `hermes_cli.web_server` is imported, so the module
fixture installs the directory form (`write_plugin_dir`, what `hwf hermes install` does)
into a home of its own and imports the web server there. Each test then works in its
own `HERMES_HOME` (conftest), which the routes resolve on every call.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import ENABLED, stub_dashboard_source
from designs import review

from hwf_lsp.hermes.engine import Workflows
from hwf_lsp.hermes.install import write_plugin_dir
from hwf_lsp.hermes.tools import TOOL_NAMES

BASE = "/api/plugins/visual-workflow"


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Any:
    home = tmp_path_factory.mktemp("dashboard-home")
    (home / "config.yaml").write_text(ENABLED)
    write_plugin_dir(home, "0.1.0", TOOL_NAMES,
                     source=stub_dashboard_source(tmp_path_factory.mktemp("tab")))
    before = os.environ.get("HERMES_HOME")
    os.environ["HERMES_HOME"] = str(home)
    try:
        already = "hermes_cli.web_server" in sys.modules
        import hermes_cli.web_server as web_server

        if already:  # mounted for another home: mount ours, ahead of the SPA catch-all
            web_server._get_dashboard_plugins(force_rescan=True)
            web_server._mount_plugin_api_routes()
            routes = web_server.app.router.routes
            ours = [r for r in routes if getattr(r, "path", "").startswith(BASE)]
            routes[:] = ours + [r for r in routes if r not in ours]
    finally:
        if before is None:
            os.environ.pop("HERMES_HOME", None)
        else:
            os.environ["HERMES_HOME"] = before
    return web_server


@pytest.fixture
def http(web: Any) -> Any:
    from fastapi.testclient import TestClient

    return TestClient(web.app, headers={"X-Hermes-Session-Token": web._SESSION_TOKEN})


def saved(home: Path, design: dict[str, Any]) -> Workflows:
    flows = Workflows(home)
    flows.designs.save(design["name"], design)
    return flows


def test_the_routes_are_mounted_and_guarded_by_the_session_token(web: Any, http: Any) -> None:
    from fastapi.testclient import TestClient

    assert TestClient(web.app).get(f"{BASE}/designs").status_code == 401
    wrong = TestClient(web.app, headers={"X-Hermes-Session-Token": "nope"})
    assert wrong.get(f"{BASE}/designs").status_code == 401
    assert http.get(f"{BASE}/designs").json() == {"designs": []}


def test_the_tab_is_listed_and_its_files_are_served(http: Any) -> None:
    plugins = http.get("/api/dashboard/plugins").json()
    (tab,) = [p for p in plugins if p["name"] == "visual-workflow"]
    assert tab["tab"]["path"] == "/workflows" and tab["has_api"] is True
    assert tab["entry"] == "dist/canvas-dashboard.js"
    manifest = http.get("/dashboard-plugins/visual-workflow/manifest.json")
    assert manifest.status_code == 200 and manifest.json()["api"] == "plugin_api.py"
    assert http.get("/dashboard-plugins/visual-workflow/plugin_api.py").status_code == 404


def test_designs_and_a_design_graph(http: Any, hermes_home: Path) -> None:
    saved(hermes_home, review())
    (listed,) = http.get(f"{BASE}/designs").json()["designs"]
    assert (listed["name"], listed["nodes"]) == ("review", 4)
    graph = http.get(f"{BASE}/designs/review/graph").json()
    path = hermes_home / "workflow-designs" / "review.json"
    assert (graph["uri"], graph["version"], graph["stale"]) == (path.as_uri(), None, False)
    assert [n["id"] for n in graph["nodes"]] == ["start", "draft", "gate", "publish"]
    assert [(e["from"], e["to"]) for e in graph["edges"]] == [
        ("start", "draft"), ("draft", "gate"), ("draft", "publish"), ("gate", "publish")]
    assert graph["nodes"][2]["main"] == {"field": "question", "value": "Ship these notes?"}
    text = path.read_text(encoding="utf-8")
    line = graph["nodes"][1]["id_range"]["start"]["line"]
    assert '"draft"' in text.splitlines()[line]


def test_a_broken_design_file_is_a_stale_empty_graph(http: Any, hermes_home: Path) -> None:
    designs = hermes_home / "workflow-designs"
    designs.mkdir()
    (designs / "torn.json").write_text('{"name": "torn", "nodes": [', encoding="utf-8")
    graph = http.get(f"{BASE}/designs/torn/graph").json()
    assert (graph["stale"], graph["nodes"], graph["edges"]) == (True, [], [])
    assert {d["code"] for d in graph["defects"]} == {"json-syntax"}


@pytest.mark.parametrize(("path", "status", "argument"), [
    ("/designs/nope/graph", 404, "name"),
    ("/designs/Not%20A%20Name/graph", 400, "name"),
    ("/runs/abcdef123456", 404, "run_id"),
    ("/runs/not-hex", 400, "run_id"),
    ("/runs?status=sleeping", 400, "status"),
    ("/runs?limit=0", 400, "limit"),
    ("/runs?limit=lots", 400, "limit"),
])
def test_bad_reads_answer_an_error_object(http: Any, path: str, status: int,
                                          argument: str) -> None:
    answer = http.get(BASE + path)
    assert answer.status_code == status, answer.text
    assert answer.json()["argument"] == argument and answer.json()["error"]


def test_respond_and_answer_change_the_run_file(http: Any, hermes_home: Path) -> None:
    flows = saved(hermes_home, review())
    state, _ = flows.run("review")
    run_id = state["run_id"]
    run_file = hermes_home / "workflow-runs" / f"{run_id}.json"
    (listed,) = http.get(f"{BASE}/runs", params={"design": "review"}).json()["runs"]
    assert (listed["run_id"], listed["status"]) == (run_id, "awaiting_agent")
    assert [s["status"] for s in listed["step_states"]] == ["waiting", "not run", "not run"]

    responded = http.post(f"{BASE}/runs/{run_id}/respond", json={"output": "notes v2"})
    assert responded.status_code == 200, responded.text
    assert responded.json()["status"] == "awaiting_approval"
    assert "instructions" not in responded.json()
    on_disk = json.loads(run_file.read_text())
    assert on_disk["outputs"]["draft"] == "notes v2"

    shown = http.get(f"{BASE}/runs/{run_id}").json()
    assert shown["pending"]["options"] == ["ship", "hold"]
    wrong = http.post(f"{BASE}/runs/{run_id}/answer", json={"choice": "maybe"})
    assert (wrong.status_code, wrong.json()["argument"]) == (400, "choice")
    assert "ship, hold" in wrong.json()["error"]
    assert json.loads(run_file.read_text()) == on_disk  # a refusal writes nothing

    answered = http.post(f"{BASE}/runs/{run_id}/answer", json={"choice": "ship"})
    assert answered.status_code == 200, answered.text
    assert answered.json()["status"] == "completed"
    assert json.loads(run_file.read_text())["answers"] == {"gate": "ship"}


@pytest.mark.parametrize(("body", "status", "says"), [
    (b"{not json", 400, "not JSON"),
    (b"[1, 2]", 400, "must be a JSON object"),
    (b'{"choice": "ship"}', 400, "not waiting for an approval"),
    (b'{"choice": "ship", "extra": 1}', 400, "unknown argument 'extra'"),
])
def test_bad_answers_say_why_and_write_nothing(http: Any, hermes_home: Path, body: bytes,
                                               status: int, says: str) -> None:
    flows = saved(hermes_home, review())
    run_id = flows.run("review")[0]["run_id"]
    run_file = hermes_home / "workflow-runs" / f"{run_id}.json"
    before = run_file.read_bytes()
    answer = http.post(f"{BASE}/runs/{run_id}/answer", content=body,
                       headers={"Content-Type": "application/json"})
    assert answer.status_code == status and says in answer.json()["error"], answer.text
    assert run_file.read_bytes() == before
    missing = http.post(f"{BASE}/runs/abcdef123456/respond", json={"output": "x"})
    assert missing.status_code == 404


def _p50_ms(call: Any, count: int = 40) -> float:
    times = []
    for _ in range(count):
        started = time.perf_counter()
        answer = call()
        times.append((time.perf_counter() - started) * 1000)
        assert answer.status_code == 200, answer.text
    return statistics.median(times)


def test_route_latency(http: Any, hermes_home: Path) -> None:
    """Measured through the whole app (middlewares, auth, the route), in-process; Hermes'
    own /api/status shows what the app costs before any route runs."""
    flows = saved(hermes_home, review())
    for _ in range(20):
        flows.run("review")
    run_id = flows.run("review")[0]["run_id"]
    figures = {
        "GET /api/status (Hermes' own route, for scale)": _p50_ms(
            lambda: http.get("/api/status")),
        "GET /designs": _p50_ms(lambda: http.get(f"{BASE}/designs")),
        "GET /designs/review/graph": _p50_ms(lambda: http.get(f"{BASE}/designs/review/graph")),
        "GET /runs?design=review (21 runs)": _p50_ms(
            lambda: http.get(f"{BASE}/runs", params={"design": "review"})),
        "GET /runs/{id}": _p50_ms(lambda: http.get(f"{BASE}/runs/{run_id}")),
        "GET /runs?design=review&limit=1": _p50_ms(
            lambda: http.get(f"{BASE}/runs", params={"design": "review", "limit": 1})),
    }
    from hwf_lsp.workflow.run_index import MTIME_SETTLE_NS

    time.sleep(MTIME_SETTLE_NS / 1e9 + 0.02)
    stamp = http.get(f"{BASE}/runs", params={"design": "review", "limit": 1}).json()["stamp"]
    figures["GET /runs?design=review&limit=1&since= (no run written)"] = _p50_ms(
        lambda: http.get(f"{BASE}/runs", params={"design": "review", "limit": 1,
                                                 "since": stamp}))
    text = (hermes_home / "workflow-designs" / "review.json").read_text()
    figures["POST /designs/review/edit (addNode on the draft)"] = _p50_ms(
        lambda: http.post(f"{BASE}/designs/review/edit",
                          json={"edit": "addNode", "kind": "agent", "after": "gate",
                                "text": text}))
    print("\ndashboard route latency, p50 ms: " + json.dumps(
        {k: round(v, 2) for k, v in figures.items()}))
    assert all(v < 500 for v in figures.values()), figures  # a loaded CI box: a loose bound


# --- issue 31: the routes of contract 6, read safely ------------------------------------


def run_of(flows: Workflows) -> tuple[str, Path]:
    run_id = flows.run("review")[0]["run_id"]
    return run_id, flows.runs.path(run_id)


@pytest.mark.parametrize(("query", "says"), [
    ("limit=" + "9" * 5000, "'limit' must be a whole number"),
    ("limit=%C2%B2", "'limit' must be a whole number"),  # '²' is a digit to str.isdigit
    ("limit=-1", "'limit' must be a whole number"),
    ("limit=201", "'limit' must be a whole number"),
])
def test_a_bad_limit_is_a_4xx_naming_it(http: Any, query: str, says: str) -> None:
    answer = http.get(f"{BASE}/runs?{query}")
    assert answer.status_code == 400, answer.text
    assert answer.json()["argument"] == "limit" and says in answer.json()["error"]


NOT_JSON_BODIES = [
    ({"Content-Type": "text/plain"}, b'{"choice": "ship"}'),  # what a cross-site form sends
    ({"Content-Type": "application/x-www-form-urlencoded"}, b"choice=ship"),
    ({"Content-Type": "multipart/form-data; boundary=x"}, b"--x--"),
    ({}, b'{"choice": "ship"}'),
]


@pytest.mark.parametrize(("headers", "body"), NOT_JSON_BODIES)
def test_a_post_that_is_not_json_is_refused_and_writes_nothing(
        http: Any, hermes_home: Path, headers: dict[str, str], body: bytes) -> None:
    flows = saved(hermes_home, review())
    run_id, run_file = run_of(flows)
    flows.runner().respond(run_id, output="notes")
    before = run_file.read_bytes()
    answer = http.post(f"{BASE}/runs/{run_id}/answer", content=body, headers=headers)
    assert answer.status_code == 415, answer.text
    assert answer.json()["argument"] == "Content-Type"
    assert run_file.read_bytes() == before


@pytest.mark.parametrize("body", [b'{"choice": NaN}', b'{"choice": 1' + b"0" * 5000 + b"}",
                                  b"\xff\xfe{}", b"[" * 100_000])
def test_a_body_that_is_not_safe_json_is_a_400(http: Any, hermes_home: Path,
                                               body: bytes) -> None:
    run_id, run_file = run_of(saved(hermes_home, review()))
    before = run_file.read_bytes()
    answer = http.post(f"{BASE}/runs/{run_id}/respond", content=body,
                       headers={"Content-Type": "application/json"})
    assert answer.status_code == 400 and "not JSON" in answer.json()["error"], answer.text
    assert run_file.read_bytes() == before


def test_the_design_routes_read_validate_save_and_refuse_defects(http: Any,
                                                                 hermes_home: Path) -> None:
    from hwf_lsp.hermes.design_revision import revision_of
    from hwf_lsp.workflow import validate_designer_graph

    design = review()
    saved_answer = http.put(f"{BASE}/designs/review", json={"design": design})
    path = hermes_home / "workflow-designs" / "review.json"
    assert saved_answer.json() == {"saved": True, "path": str(path),
                                   "revision": revision_of(path.read_text())}, saved_answer.text
    assert http.get(f"{BASE}/designs/review").json() == {"design": json.loads(path.read_text())}
    broken = review()
    broken["nodes"][1].pop("prompt")
    checked = http.post(f"{BASE}/validate", json={"design": broken}).json()
    assert checked == {"valid": False, "defects": validate_designer_graph(broken)}
    before = path.read_bytes()
    refused = http.put(f"{BASE}/designs/review", json={"design": broken})
    assert refused.status_code == 400 and refused.json()["argument"] == "design"
    assert refused.json()["defects"] == validate_designer_graph(broken)
    assert path.read_bytes() == before
    assert http.get(f"{BASE}/designs/nope").status_code == 404
    assert http.post(f"{BASE}/designs/nope/runs", json={}).status_code == 404


def test_a_run_started_here_performs_its_agent_step_through_plugin_llm(
        http: Any, fake: Any, hermes_home: Path) -> None:
    fake.script = lambda messages: {"content": "v2: faster"}
    saved(hermes_home, review())
    started = http.post(f"{BASE}/designs/review/runs", json={})
    assert started.status_code == 200, started.text
    summary = started.json()
    assert summary["status"] == "awaiting_approval", summary
    assert "instructions" not in summary
    (request,) = fake.requests
    assert "Draft release notes for v2" in json.dumps(request["messages"])
    assert request["model"] == fake.model  # the gate is closed: not the node's big-model
    run_id = summary["run_id"]
    assert Workflows(hermes_home).runs.load(run_id)["outputs"]["draft"] == "v2: faster"
    cancelled = http.post(f"{BASE}/runs/{run_id}/cancel", json={})
    assert cancelled.json()["status"] == "cancelled", cancelled.text


def test_bad_entries_are_listed_with_their_reason(http: Any, hermes_home: Path) -> None:
    from conftest import BAD_DESIGNS, BAD_RUNS, add_bad_entries

    run_id, _ = run_of(saved(hermes_home, review()))
    add_bad_entries(hermes_home)
    designs = {d["name"]: d for d in http.get(f"{BASE}/designs").json()["designs"]}
    assert set(designs) == {"review", *BAD_DESIGNS}
    runs = http.get(f"{BASE}/runs").json()
    assert [r["run_id"] for r in runs["runs"]] == [run_id]
    assert {Path(u["path"]).stem for u in runs["unreadable"]} == set(BAD_RUNS)
    loop = next(iter(BAD_RUNS))
    for answer in (http.get(f"{BASE}/runs/{loop}"), http.get(f"{BASE}/designs/loop"),
                   http.post(f"{BASE}/runs/{loop}/cancel", json={})):
        assert answer.status_code == 422, answer.text
        assert "is unreadable: a symlink loop" in answer.json()["error"]


@pytest.fixture
def served(web: Any) -> Any:
    """Hermes' app served by uvicorn on 127.0.0.1 (a free port), for raw requests."""
    import threading

    import uvicorn

    server = uvicorn.Server(uvicorn.Config(web.app, host="127.0.0.1", port=0,
                                           log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started
    yield server.servers[0].sockets[0].getsockname()[1], web._SESSION_TOKEN
    server.should_exit = True
    thread.join(timeout=10)


def _raw_post(port: int, token: str, path: str, head: str, body: Any) -> str:
    """Send a request's head and then `body` (bytes, or chunks sent while the server still
    listens); the status line of the answer."""
    import socket

    with socket.create_connection(("127.0.0.1", port), timeout=20) as sock:
        sock.sendall((f"POST {BASE}{path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                      f"X-Hermes-Session-Token: {token}\r\nContent-Type: application/json\r\n"
                      f"{head}\r\n").encode())
        try:
            for chunk in body:
                sock.sendall(chunk)
        except OSError:  # the server answered and closed: it stopped reading
            pass
        return sock.recv(4096).decode("latin-1").split("\r\n", 1)[0]


def test_a_huge_body_is_refused_before_it_is_read(served: Any, hermes_home: Path) -> None:
    from hwf_lsp.hermes.route_input import MAX_BODY_BYTES

    port, token = served
    run_id, run_file = run_of(saved(hermes_home, review()))
    before = run_file.read_bytes()
    # 200 MB declared, not one byte sent: answered at once, so nothing was waited for.
    started = time.perf_counter()
    status = _raw_post(port, token, f"/runs/{run_id}/respond",
                       "Content-Length: 209715200\r\n", [])
    assert status == "HTTP/1.1 413 Request Entity Too Large", status
    assert time.perf_counter() - started < 10
    # No length, chunked: read only up to the cap.
    mib = b"x" * (1 << 20)
    chunks = (b"%x\r\n%s\r\n" % (len(mib), mib) for _ in range(MAX_BODY_BYTES // len(mib) + 4))
    status = _raw_post(port, token, f"/runs/{run_id}/respond",
                       "Transfer-Encoding: chunked\r\n", chunks)
    assert status == "HTTP/1.1 413 Request Entity Too Large", status
    assert run_file.read_bytes() == before


# --- issue 31, level two: the tab edits designs with the editor's edit code ---------------


def edit(http: Any, body: dict[str, Any], name: str = "review") -> Any:
    return http.post(f"{BASE}/designs/{name}/edit", json=body)


def test_edits_chain_on_the_draft_and_write_nothing_until_saved(http: Any,
                                                                 hermes_home: Path) -> None:
    from hwf_lsp.workflow import validate_designer_graph

    saved(hermes_home, review())
    path = hermes_home / "workflow-designs" / "review.json"
    before = path.read_bytes()
    steps = [  # (request, the new node's id, the node whose defect codes are checked, them)
        ({"edit": "addNode", "kind": "agent", "after": "gate"}, "agent1", "agent1",
         ["required-payload"]),
        ({"edit": "connect", "from": "agent1", "to": "publish"}, None, "publish", []),
        ({"edit": "setField", "id": "agent1", "field": "prompt", "value": "Tweet it"}, None,
         "agent1", []),
    ]
    text = None
    for request, new_id, node_id, codes in steps:
        answer = edit(http, {**request, **({"text": text} if text is not None else {})})
        assert answer.status_code == 200, answer.text
        body = answer.json()
        first = text is None  # an edit of the stored file says which revision it started from
        assert set(body) == {"text", "id", "graph", "valid", "defects", *(["base"] if first else [])}
        text = body["text"]
        assert body["id"] == new_id
        assert body["defects"] == validate_designer_graph(json.loads(text))
        assert body["valid"] == (not body["defects"])
        node = next(n for n in body["graph"]["nodes"] if n["id"] == node_id)
        assert [d["code"] for d in node["defects"]] == codes, node["defects"]
    assert path.read_bytes() == before
    publish = next(n for n in json.loads(text)["nodes"] if n["id"] == "publish")
    assert publish["after"] == ["draft", "gate", "agent1"]
    assert http.put(f"{BASE}/designs/review",
                    json={"design": json.loads(text)}).status_code == 200
    assert [n["id"] for n in http.get(f"{BASE}/designs/review/graph").json()["nodes"]] == [
        "start", "draft", "gate", "agent1", "publish"]


@pytest.mark.parametrize(("name", "body", "status", "argument", "says"), [
    ("review", {"edit": "explode"}, 400, "edit", "must be one of connect"),
    ("review", {"edit": "connect", "from": "start"}, 400, "to", "missing 'to'"),
    ("review", {"edit": "deleteNode", "id": "gate", "force": True}, 400, "force",
     "unknown argument"),
    ("review", {"edit": "deleteNode", "id": "gate", "text": 7}, 400, "text", "a string"),
    ("review", {"edit": "connect", "from": "publish", "to": "draft"}, 400, "edit", "cycle"),
    ("review", {"edit": "deleteNode", "id": "start", "text": '{"nodes": ['}, 400, "edit",
     "not valid JSON"),
    ("nope", {"edit": "deleteNode", "id": "start"}, 404, "name", "no design 'nope'"),
    ("Not A Name", {"edit": "deleteNode", "id": "start"}, 400, "name", ""),
])
def test_a_bad_edit_is_a_4xx_naming_its_argument(http: Any, hermes_home: Path, name: str,
                                                 body: dict[str, Any], status: int,
                                                 argument: str, says: str) -> None:
    saved(hermes_home, review())
    answer = edit(http, body, name)
    assert answer.status_code == status, answer.text
    assert answer.json()["argument"] == argument and says in answer.json()["error"]


def test_an_edit_of_a_new_design_needs_only_its_text(http: Any, hermes_home: Path) -> None:
    text = json.dumps({"name": "fresh", "nodes": [{"id": "start", "type": "trigger"}]})
    answer = edit(http, {"edit": "addNode", "kind": "output", "after": "start", "text": text},
                  "fresh")
    assert answer.status_code == 200, answer.text
    assert answer.json()["graph"]["uri"] == (
        hermes_home / "workflow-designs" / "fresh.json").as_uri()
    assert [(e["from"], e["to"]) for e in answer.json()["graph"]["edges"]] == [
        ("start", "output1")]
    assert not (hermes_home / "workflow-designs").exists() or not any(
        (hermes_home / "workflow-designs").iterdir())


@pytest.mark.parametrize(("headers", "body"), NOT_JSON_BODIES)
def test_an_edit_that_is_not_json_is_refused(http: Any, hermes_home: Path,
                                             headers: dict[str, str], body: bytes) -> None:
    saved(hermes_home, review())
    answer = http.post(f"{BASE}/designs/review/edit", content=body, headers=headers)
    assert answer.status_code == 415 and answer.json()["argument"] == "Content-Type"


def test_a_poll_since_a_stamp_lists_nothing_while_no_run_was_written(
        http: Any, hermes_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hwf_lsp.hermes import tools
    from hwf_lsp.workflow.run_index import MTIME_SETTLE_NS

    flows = saved(hermes_home, review())
    run_id = flows.run("review")[0]["run_id"]
    settle = MTIME_SETTLE_NS / 1e9 + 0.02
    time.sleep(settle)
    first = http.get(f"{BASE}/runs", params={"design": "review", "limit": 1}).json()
    stamp = first["stamp"]
    assert isinstance(stamp, str) and first["runs"][0]["status"] == "awaiting_agent"

    real_runs = tools.runs
    monkeypatch.setattr(tools, "runs", lambda *a: pytest.fail("listed the runs again"))
    again = http.get(f"{BASE}/runs", params={"design": "review", "limit": 1, "since": stamp})
    assert again.json() == {"unchanged": True, "stamp": stamp}
    monkeypatch.setattr(tools, "runs", real_runs)

    flows.runner().respond(run_id, output="notes")
    time.sleep(settle)
    for since in (stamp, "junk"):
        moved = http.get(f"{BASE}/runs", params={"design": "review", "limit": 1,
                                                 "since": since}).json()
        assert moved["runs"][0]["status"] == "awaiting_approval"
        assert moved["stamp"] not in (None, stamp)


def test_no_stamp_is_given_while_the_directory_may_not_move_on_the_next_write() -> None:
    from hwf_lsp.hermes.plugin_api import _stamp_text

    now = time.time_ns()
    assert _stamp_text((now, 7)) is None  # a write in this tick would keep the mtime
    assert _stamp_text((now - 10**9, 7)) == f"{now - 10**9}-7"
    assert _stamp_text(None) is None  # no runs directory yet


# --- Save against the revision the draft was made from (a newer stored copy is kept) -----


def other_writer(path: Path) -> bytes:
    """Change the stored design as `hwf`, the chat tools or an editor would: a new title."""
    changed = json.loads(path.read_text(encoding="utf-8"))
    changed["nodes"][0]["title"] = "Written elsewhere"
    Workflows(path.parent.parent).designs.save(changed["name"], changed)
    return path.read_bytes()


def test_the_graph_and_a_first_edit_give_the_stored_revision_and_save_answers_the_new_one(
        http: Any, hermes_home: Path) -> None:
    from hwf_lsp.hermes.design_revision import revision_of

    saved(hermes_home, review())
    path = hermes_home / "workflow-designs" / "review.json"
    revision = http.get(f"{BASE}/designs/review/graph").json()["revision"]
    assert revision == revision_of(path.read_text(encoding="utf-8"))
    first = edit(http, {"edit": "deleteNode", "id": "gate"}).json()
    assert first["base"] == revision
    assert "base" not in edit(http, {"edit": "deleteNode", "id": "publish",
                                     "text": first["text"]}).json()
    answer = http.put(f"{BASE}/designs/review",
                      json={"design": json.loads(first["text"]), "base": revision})
    assert answer.status_code == 200, answer.text
    assert answer.json()["revision"] == revision_of(path.read_text(encoding="utf-8"))
    assert "gate" not in [n["id"] for n in json.loads(path.read_text())["nodes"]]


def test_a_save_on_a_stale_base_is_a_409_and_keeps_the_other_writers_copy(
        http: Any, hermes_home: Path) -> None:
    saved(hermes_home, review())
    path = hermes_home / "workflow-designs" / "review.json"
    base = http.get(f"{BASE}/designs/review/graph").json()["revision"]
    draft = json.loads(edit(http, {"edit": "deleteNode", "id": "gate"}).json()["text"])
    theirs = other_writer(path)
    refused = http.put(f"{BASE}/designs/review", json={"design": draft, "base": base})
    assert refused.status_code == 409, refused.text
    body = refused.json()
    assert body["argument"] == "base" and "changed by another writer" in body["error"]
    assert body["revision"] == http.get(f"{BASE}/designs/review/graph").json()["revision"]
    assert path.read_bytes() == theirs
    # Overwriting on purpose: the base is the copy the 409 named, and only that one.
    again = http.put(f"{BASE}/designs/review", json={"design": draft, "base": body["revision"]})
    assert again.status_code == 200, again.text
    assert [n["id"] for n in json.loads(path.read_text())["nodes"]] == [
        "start", "draft", "publish"]


def hand_written(home: Path) -> Path:
    """review stored as a person writes it: compact nodes, a blank line, no indent of 2."""
    nodes = ",\n".join(f"    {json.dumps(n)}" for n in review()["nodes"])
    path = home / "workflow-designs" / "review.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'{{"name": "review",\n\n  "nodes": [\n{nodes}\n  ]}}\n', encoding="utf-8")
    return path


def test_a_saved_draft_text_is_written_as_it_is_so_the_file_changes_by_the_edit_only(
        http: Any, hermes_home: Path) -> None:
    from hwf_lsp.hermes.design_revision import revision_of

    path = hand_written(hermes_home)
    graph = http.get(f"{BASE}/designs/review/graph").json()
    assert graph["text"] == path.read_text(encoding="utf-8")
    added = edit(http, {"edit": "addNode", "kind": "agent", "after": "start",
                        "text": graph["text"]}).json()
    # a new node's prompt starts empty (the author's words): written before Save
    added = edit(http, {"edit": "setField", "id": "agent1", "field": "prompt",
                        "value": "Tweet it", "text": added["text"]}).json()
    answer = http.put(f"{BASE}/designs/review",
                      json={"text": added["text"], "base": graph["revision"]})
    assert answer.status_code == 200, answer.text
    written = path.read_text(encoding="utf-8")
    assert written == added["text"] and answer.json()["revision"] == revision_of(written)
    before, after = graph["text"].splitlines(), written.splitlines()
    assert [line for line in after if line not in before] != [] and all(
        line in after for line in before if line.strip() not in ("", "]")), written


def check_refused_text(http: Any, path: Path, body: dict[str, Any], says: str) -> None:
    before = path.read_bytes()
    answer = http.put(f"{BASE}/designs/review", json=body)
    assert answer.status_code == 400 and says in answer.json()["error"], answer.text
    assert path.read_bytes() == before


@pytest.mark.parametrize(("body", "says"), [
    ({"text": '{"name": "review", "nodes": [}'}, "not valid JSON at line 1, column 30"),
    ({"text": 7}, "'text' must be the design's text"),
    ({"text": "{}", "design": {}}, "not both"),
    ({"text": '{"name": "other", "nodes": []}'}, "the two must agree"),
    ({"text": '{"name": "review", "nodes": [{"id": "a", "type": "agent"}]}'}, "defect"),
])
def test_a_draft_text_the_store_refuses_writes_nothing(http: Any, hermes_home: Path,
                                                       body: dict[str, Any], says: str) -> None:
    check_refused_text(http, hand_written(hermes_home), body, says)


def test_a_draft_text_without_the_name_is_written_in_the_stores_form(
        http: Any, hermes_home: Path) -> None:
    path = hand_written(hermes_home)
    text = json.dumps({"nodes": review()["nodes"]})
    answer = http.put(f"{BASE}/designs/review", json={"text": text})
    assert answer.status_code == 200, answer.text
    assert json.loads(path.read_text())["name"] == "review"


def test_a_conflict_answers_the_stored_copys_text(http: Any, hermes_home: Path) -> None:
    saved(hermes_home, review())
    path = hermes_home / "workflow-designs" / "review.json"
    graph = http.get(f"{BASE}/designs/review/graph").json()
    theirs = other_writer(path)
    refused = http.put(f"{BASE}/designs/review",
                       json={"text": graph["text"], "base": graph["revision"]})
    assert refused.status_code == 409 and refused.json()["text"] == theirs.decode(), refused.text


def test_a_save_whose_design_was_deleted_since_is_a_409_and_writes_nothing(
        http: Any, hermes_home: Path) -> None:
    saved(hermes_home, review())
    path = hermes_home / "workflow-designs" / "review.json"
    base = http.get(f"{BASE}/designs/review/graph").json()["revision"]
    path.unlink()
    refused = http.put(f"{BASE}/designs/review", json={"design": review(), "base": base})
    assert refused.status_code == 409, refused.text
    assert refused.json()["revision"] is None and "was deleted" in refused.json()["error"]
    assert not path.exists()


def test_a_save_without_a_base_overwrites_as_before(http: Any, hermes_home: Path) -> None:
    saved(hermes_home, review())
    path = hermes_home / "workflow-designs" / "review.json"
    other_writer(path)
    answer = http.put(f"{BASE}/designs/review", json={"design": review()})
    assert answer.status_code == 200, answer.text
    assert json.loads(path.read_text())["nodes"][0].get("title") != "Written elsewhere"


@pytest.mark.parametrize("base", [7, ["abc"], {"revision": "abc"}])
def test_a_base_that_is_not_a_revision_is_a_400(http: Any, hermes_home: Path,
                                                base: Any) -> None:
    saved(hermes_home, review())
    path = hermes_home / "workflow-designs" / "review.json"
    before = path.read_bytes()
    answer = http.put(f"{BASE}/designs/review", json={"design": review(), "base": base})
    assert answer.status_code == 400 and answer.json()["argument"] == "base", answer.text
    assert path.read_bytes() == before


def test_complete_answers_the_inspectors_expression_with_the_newest_run(
        http: Any, hermes_home: Path) -> None:
    """`POST /designs/{name}/complete`: the editor's completion of a condition's expression
    (`analysis/expression_completion.py`) on the tab's draft, paths from the newest run."""
    flows = saved(hermes_home, review())
    state, _ = flows.run("review")
    flows.runner().respond(state["run_id"], structured={"n": 3, "tone": "dry"})
    draft = review()
    draft["nodes"].append({"id": "check", "type": "condition", "expression": "out.draft.n > 1",
                           "after": ["draft"]})
    text = json.dumps(draft, indent=2)

    def complete(expression: str, offset: int, more: dict[str, Any] | None = None) -> Any:
        body = {"text": text, "id": "check", "expression": expression, "offset": offset}
        return http.post(f"{BASE}/designs/review/complete", json={**body, **(more or {})})

    ids = complete("out.", 4).json()["items"]
    assert ids[0] == {**ids[0], "label": "draft", "text": "draft.", "start": 4, "end": 4}
    paths = complete("out.draft.", 10).json()["items"]
    assert [(i["label"], i["detail"]) for i in paths] == [("n", "3"), ("tone", '"dry"')]
    stored = http.post(f"{BASE}/designs/review/complete",
                       json={"id": "gate", "expression": "out.", "offset": 4})
    assert [i["label"] for i in stored.json()["items"]] == ["draft"]  # the stored design
    for more, argument in [({"offset": 99}, "offset"), ({"offset": "4"}, "offset"),
                           ({"id": None}, "id"), ({"text": 7}, "text")]:
        refused = complete("out.", 4, more)
        assert refused.status_code == 400 and refused.json()["argument"] == argument, more
