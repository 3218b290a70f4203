"""One truth about a run (docs/commands.md, "Run summary"): every surface renders the
engine's run facts.

The fixture runs (tests/support/fixture_runs.py) are real runs of the Runner covering
every step state: failed delivery, rejected, answered with a custom choice, reused,
skipped by a condition and transitively, skipped because of a rejection upstream,
failed after retries, cancelled, escalated approval, waiting, running.  First their
facts are checked against what the engine must say (`EXPECTED`); then each surface
reachable from Python renders them, and each rendering is compared with the facts by
one `check`: a surface shows a step's label (`step_words.step_label`) or, in JSON,
the facts themselves.  No surface may disagree.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.fixture_runs import (
    EXPECTED,
    EXTENSION_FIXTURE,
    Fixture,
    build_all,
    extension_fixture_text,
)

from hwf_lsp.analysis.design import design_of
from hwf_lsp.analysis.hints import STATUS, hints
from hwf_lsp.analysis.hover_text import node_markdown
from hwf_lsp.analysis.newest_run import RunInfo
from hwf_lsp.cli import main as hwf_main
from hwf_lsp.hermes.engine import Workflows
from hwf_lsp.hermes.slash import summary_lines
from hwf_lsp.hermes.tools import summary_of
from hwf_lsp.jsontext.jsontree import parse
from hwf_lsp.rules.run_facts import step_facts
from hwf_lsp.rules.step_words import STEP_STATES, step_label
from hwf_lsp.server.features.code_lens import lens_specs
from hwf_lsp.server.runs.manager import delivery_warning
from hwf_lsp.workflow.run_summary import run_summary


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hermes-home")


@pytest.fixture(scope="module")
def fixtures(home: Path) -> dict[str, Fixture]:
    return build_all(home)


def facts_of(fixture: Fixture) -> dict[str, dict[str, Any]]:
    return {fact["id"]: fact for fact in step_facts(fixture.state)}


# --- the engine's side: the facts are right -----------------------------------------


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_fixture_facts_are_what_the_engine_must_say(fixtures, name: str) -> None:
    facts = facts_of(fixtures[name])
    assert list(facts) == list(EXPECTED[name])
    for step_id, (status, *checks) in EXPECTED[name].items():
        fact = facts[step_id]
        assert fact["status"] == status, (name, step_id, fact)
        for key, value in checks:
            got = len(fact.get(key) or ()) if key == "attempts" else fact.get(key)
            assert got == value, (name, step_id, key, fact)
        if status not in ("not run", "reused", "running"):  # (running: only an agent
            assert fact["started_at"], (name, step_id)    # command's in_flight says when)
        if status in ("done", "answered", "rejected", "skipped", "not delivered", "failed"):
            assert fact["ended_at"] >= fact["started_at"], (name, step_id)


def test_the_fixtures_cover_every_step_state(fixtures) -> None:
    seen = {fact["status"] for fx in fixtures.values() for fact in step_facts(fx.state)}
    assert seen == set(STEP_STATES)


# --- the surfaces -------------------------------------------------------------------
# Each renders one fixture to {step id: what it shows of that step}.  A text surface must
# show the step's label; a JSON surface must carry the facts themselves.


def cli(home: Path, capsys: pytest.CaptureFixture[str], *args: str) -> str:
    capsys.readouterr()
    code = hwf_main([*args, "--hermes-home", str(home)])
    assert code == 0, capsys.readouterr()
    return capsys.readouterr().out


STEP_LINE = re.compile(r"^\s+#\d+ (\S+) ")
SLASH_LINE = re.compile(r"^  (\S+) \(")


def lines_by_step(text: str, pattern: re.Pattern[str]) -> dict[str, str]:
    """The lines of `text` that are about a step (the step id where `pattern` finds it)."""
    return {m.group(1): line for line in text.splitlines() if (m := pattern.match(line))}


def cli_show_text(fx: Fixture, home: Path, capsys) -> dict[str, Any]:
    return lines_by_step(cli(home, capsys, "show", fx.state["run_id"]), STEP_LINE)


def cli_runs_json(fx: Fixture, home: Path, capsys) -> dict[str, Any]:
    listed = json.loads(cli(home, capsys, "runs", "--json", "--all"))
    summary = next(s for s in listed if s["run_id"] == fx.state["run_id"])
    return {s["id"]: s for s in summary["step_states"]}


def cli_step_json(fx: Fixture, home: Path, capsys) -> dict[str, Any]:
    return {step: json.loads(cli(home, capsys, "show", fx.state["run_id"], "--step", step,
                                 "--json"))["step"] for step in EXPECTED[fx.name]}


def cli_step_text(fx: Fixture, home: Path, capsys) -> dict[str, Any]:
    return {step: cli(home, capsys, "show", fx.state["run_id"], "--step", step)
            .splitlines()[0] for step in EXPECTED[fx.name]}


def run_summary_json(fx: Fixture, home: Path, capsys) -> dict[str, Any]:
    summary = run_summary(fx.state, home / "workflow-runs")
    return {s["id"]: s for s in summary["step_states"]}


def tool_summary_json(fx: Fixture, home: Path, capsys) -> dict[str, Any]:
    summary = summary_of(Workflows(home), fx.state, parked_hint=False)
    return {s["id"]: s for s in json.loads(json.dumps(summary))["step_states"]}


def slash_text(fx: Fixture, home: Path, capsys) -> dict[str, Any]:
    lines = summary_lines(run_summary(fx.state, home / "workflow-runs"))
    return lines_by_step("\n".join(lines), SLASH_LINE)


def editor_run(fx: Fixture) -> tuple[Any, RunInfo, str]:
    text = json.dumps(fx.design, indent=1)
    doc = parse(text)
    run = RunInfo.from_state(fx.state, f"/runs/{fx.state['run_id']}.json")
    return doc, run.with_design(fx.design), text


def hover_text(fx: Fixture, home: Path, capsys) -> dict[str, Any]:
    doc, run, _ = editor_run(fx)
    design = design_of(doc)
    shown = {step: node_markdown(design.by_id[step], run) for step in EXPECTED[fx.name]}
    for step, text in shown.items():  # and the times as the facts have them
        fact = run.fact(step)
        assert fact is not None and (fact["started_at"] or "-") in text + "-", (step, text)
    return shown


def inlay_hints(fx: Fixture, home: Path, capsys) -> dict[str, Any]:
    doc, run, text = editor_run(fx)
    shown = {}
    for hint in hints(doc, run):
        if hint.kind == STATUS:
            step = text[text.rindex('"', 0, hint.offset - 1) + 1:hint.offset - 1]
            shown[step] = hint.label
    return shown


def code_lenses(fx: Fixture, home: Path, capsys) -> dict[str, Any]:
    doc, run, text = editor_run(fx)
    shown: dict[str, str] = {}
    for _offset, title, command, args in lens_specs(design_of(doc), "file:///d.hwf.json", run):
        if command == "hwf.showStep":
            shown[args[1]] = title
    return shown


TEXT, JSON = "text", "json"
SURFACES: dict[str, tuple[Callable[..., dict[str, Any]], str]] = {
    "hwf show (text)": (cli_show_text, TEXT),
    "hwf show --step (text)": (cli_step_text, TEXT),
    "hwf show --step --json": (cli_step_json, JSON),
    "hwf runs --json": (cli_runs_json, JSON),
    "run summary (editor, dashboard)": (run_summary_json, JSON),
    "plugin tool summary": (tool_summary_json, JSON),
    "/workflow status": (slash_text, TEXT),
    "hover": (hover_text, TEXT),
    "inlay hints": (inlay_hints, TEXT),
    "code lenses": (code_lenses, TEXT),
}


def check(surface: str, fx: Fixture, shown: dict[str, Any]) -> list[str]:
    """How the surface's rendering of `fx` disagrees with the run facts ([] = agrees)."""
    kind = SURFACES[surface][1]
    problems = []
    for step_id, fact in facts_of(fx).items():
        got = shown.get(step_id)
        if kind == JSON:
            if got != fact:
                problems.append(f"{step_id}: {got!r} is not the facts {fact!r}")
        elif got is None or step_label(fact) not in got:
            problems.append(f"{step_id}: {got!r} does not show {step_label(fact)!r}")
    return problems


@pytest.mark.parametrize("surface", list(SURFACES))
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_surface_renders_the_facts(fixtures, home, capsys, surface: str,
                                          name: str) -> None:
    render = SURFACES[surface][0]
    fx = fixtures[name]
    assert check(surface, fx, render(fx, home, capsys)) == []


def test_a_failed_delivery_warns_in_the_editor_with_the_fixing_setting(fixtures) -> None:
    fx = fixtures["failed-delivery"]
    (receipt,) = fx.state["deliveries"]
    warning = delivery_warning({"event": "delivery", "run_id": fx.state["run_id"],
                                "node": "post", "receipt": receipt})
    assert "no channel command configured" in warning and "hwf.delivery.command" in warning
    assert delivery_warning({"event": "delivery", "receipt": {**receipt, "ok": True}}) is None


def test_check_finds_a_surface_that_disagrees(fixtures) -> None:
    """The comparison is not vacuous: a surface showing `✓ done` for the failed delivery
    (the bug of issue 28) is caught, and so is JSON that drops a fact."""
    fx = fixtures["failed-delivery"]
    wrong = {"draft": "✓ done", "post": "✓ done"}
    assert check("inlay hints", fx, wrong) == [
        "post: '✓ done' does not show '⚠ not delivered'"]
    facts = facts_of(fx)
    dropped = {**facts, "post": {**facts["post"], "status": "done"}}
    assert len(check("hwf runs --json", fx, dropped)) == 1


def test_the_extensions_fixture_is_these_runs(fixtures, home) -> None:
    """The VS Code extension's conformance test (src/test/conformance.test.ts: Runs view
    items, the canvas's node model, the status bar, the dashboard) renders the summaries
    of these very runs; they are committed as built (HWF_WRITE_FIXTURES=1 rewrites)."""
    text = extension_fixture_text(fixtures, home / "workflow-runs")
    if os.environ.get("HWF_WRITE_FIXTURES") == "1":
        EXTENSION_FIXTURE.parent.mkdir(parents=True, exist_ok=True)
        EXTENSION_FIXTURE.write_text(text, encoding="utf-8")
    assert EXTENSION_FIXTURE.read_text(encoding="utf-8") == text, (
        f"{EXTENSION_FIXTURE} is stale: HWF_WRITE_FIXTURES=1 pytest {__file__}")
