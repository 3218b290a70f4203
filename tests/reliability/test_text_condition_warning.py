"""A condition that reads a field of text is never silent (issue 45, "a run that misleads").

The shipped review-flow asked for JSON while the agent protocol takes data only as
`{"structured": …}`; a model answering the bare object had it stored as text, the
condition read false, sign-off and publish were skipped and the run "completed" with no
word but the CLI's detail.  Now: a warning in the run's facts and summary (`warnings`),
in the step's label (hover, inlay hints, lenses, canvas), in `hwf run`/`hwf show`,
expectable in design tests (`expect.warnings`); and the examples ask for data the way the
agent's system prompt does.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import pytest
from hostile import hwf, write_json
from support.design_tests import case, hwf_test, write_test
from support.designs import agent, condition, design, output

from hwf_lsp.hermes.host_seams import SYSTEM_PROMPT
from hwf_lsp.rules.step_words import step_sentence
from hwf_lsp.workflow.design_test_files import load_test_file
from hwf_lsp.workflow.design_test_run import run_test_file
from hwf_lsp.workflow.run_summary import run_summary
from hwf_lsp.workflow.runner import Runner
from hwf_lsp.workflow.seams import CallableAgentSeam

REPO = Path(__file__).resolve().parents[2]
GATED = design(agent("review"), condition("gate", "out.review.score >= 7", "review"),
               output("publish", "gate", "review"), name="gated")
TEXT_JSON = '{"score": 9}'


def summary_after(answer: dict) -> dict:
    with tempfile.TemporaryDirectory() as scratch:
        from hwf_lsp.workflow.stores import RunStore

        runs = RunStore(Path(scratch) / "workflow-runs")
        state = Runner(runs, agent=CallableAgentSeam(lambda request: answer)).start(GATED)
        return run_summary(state, runs.root)


# (answer, warned, the warning's words)
ANSWERS = [
    ({"output": TEXT_JSON}, True, "out.review is text, not JSON (it holds JSON as text"),
    ({"output": "a score of nine"}, True, "out.review is text, not JSON; "),
    ({"structured": {"score": 9}}, False, None),
    ({"structured": {"score": 3}}, False, None),  # false, and rightly so: no warning
    ({"structured": {"grade": 9}}, False, None),  # a missing key: the runner's detail says
]


@pytest.mark.parametrize(("answer", "warned", "words"), ANSWERS,
                         ids=["json-as-text", "text", "data", "data-false", "no-key"])
def test_the_summary_and_the_facts_warn(answer, warned, words):
    summary = summary_after(answer)
    gate = next(s for s in summary["step_states"] if s["id"] == "gate")
    assert summary["status"] == "completed"
    if not warned:
        assert summary["warnings"] == [] and "warning" not in gate
        return
    [warning] = summary["warnings"]
    assert warning["node"] == "gate" and words in warning["msg"], warning
    assert gate["warning"] == warning["msg"]
    assert gate["label"] == "⤼ skipped: false, out.review is text, not JSON"
    assert words in step_sentence(gate)  # hover and `hwf show --step`


def _run_with_text_answer(tmp_path: Path) -> tuple[str, Path]:
    agent_py = tmp_path / "agent.py"
    agent_py.write_text(f"import sys; sys.stdin.read(); print({json.dumps(TEXT_JSON)!r})\n")
    design_path = write_json(tmp_path / "gated.hwf.json", GATED)
    home = tmp_path / "home"
    done = hwf("run", str(design_path), "--agent-command", f"python3 {agent_py}", home=home)
    return done.stdout, home


def test_hwf_run_and_show_print_the_warning(tmp_path):
    stdout, home = _run_with_text_answer(tmp_path)
    assert "warning: step 'gate': out.review is text, not JSON" in stdout, stdout
    run_id = re.search(r"run ([0-9a-f]+)", stdout).group(1)
    shown = hwf("show", run_id, home=home).stdout
    assert "skipped: false, out.review is text, not JSON" in shown
    assert "warning: step 'gate': out.review is text, not JSON" in shown
    shown_json = json.loads(hwf("runs", "--json", home=home).stdout)
    assert shown_json[0]["warnings"][0]["node"] == "gate"


@pytest.mark.parametrize(("expected", "passes"), [({"gate": True}, True),
                                                  ({"gate": False}, False)])
def test_design_tests_can_expect_the_warning(tmp_path, expected, passes):
    test = hwf_test(case("c", {"status": "completed", "warnings": expected},
                         agents={"review": {"output": TEXT_JSON}}))
    path = write_test(tmp_path, test, the_design=GATED)
    [result] = run_test_file(load_test_file(path))
    assert result.passed is passes, result.failures
    if not passes:
        assert "warning of 'gate': expected none, got 'out.review is text" in \
            result.failures[0]


def test_write_expectations_writes_the_warning(tmp_path):
    test = hwf_test(case("c", agents={"review": {"output": TEXT_JSON}}))
    path = write_test(tmp_path, test, the_design=GATED)
    assert hwf("test", "--write-expectations", str(path), home=None).code == 0
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written["cases"][0]["expect"]["warnings"] == {"gate": True}


def test_expect_warnings_names_conditions_only(tmp_path):
    test = hwf_test(case("c", {"warnings": {"work": True, "high": "yes"}}))
    path = write_test(tmp_path, test)
    done = hwf("test", str(path), home=None)
    assert done.code == 2
    assert "/cases/0/expect/warnings/work" in done.stderr
    assert "/cases/0/expect/warnings/high" in done.stderr


def test_the_examples_ask_for_data_as_the_agent_protocol_does():
    assert '{"structured": ...}' in SYSTEM_PROMPT
    designs = [*REPO.glob("examples/*.hwf.json"), *REPO.glob("examples/workflow-designs/*.json")]
    asking = 0
    for path in designs:
        nodes = json.loads(path.read_text(encoding="utf-8")).get("nodes")
        for node in nodes if isinstance(nodes, list) else []:
            prompt = node.get("prompt") if isinstance(node, dict) else None
            if isinstance(prompt, str) and ("JSON" in prompt or "{" in prompt):
                asking += 1
                assert '{"structured":' in prompt, (path.name, node["id"], prompt)
    assert asking  # review-flow's review asks for data
