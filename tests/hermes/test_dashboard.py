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
from conftest import ENABLED
from designs import review

from hwf_lsp.hermes.engine import Workflows
from hwf_lsp.hermes.install import write_plugin_dir
from hwf_lsp.hermes.tools import TOOL_NAMES

BASE = "/api/plugins/visual-workflow"


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> Any:
    home = tmp_path_factory.mktemp("dashboard-home")
    (home / "config.yaml").write_text(ENABLED)
    write_plugin_dir(home, "0.1.0", TOOL_NAMES)
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
    flows.save(design["name"], design)
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
    }
    print("\ndashboard route latency, p50 ms: " + json.dumps(
        {k: round(v, 2) for k, v in figures.items()}))
    assert all(v < 500 for v in figures.values()), figures  # a loaded CI box: a loose bound
