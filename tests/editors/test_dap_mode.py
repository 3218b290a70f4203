"""The workflow debugger driven by a real Emacs with dap-mode (Debian's emacs-nox 28 +
elpa-dap-mode 0.7), in batch mode, through the README's config verbatim.

Emacs loads the README's dap-mode snippet as the init file, opens a design, puts a
breakpoint on `publish`'s line and starts the README's template with `dap-debug`: the run
stops before `publish`; the driver reads the scopes and variables as dap-mode's views do,
sets `review`'s output (setVariable), continues, and the session ends. The run file then
says what happened: completed, `publish` delivered the edited value, the edit recorded.
"""

from __future__ import annotations

import json
from pathlib import Path

from editor_support import REPO, editor, snippet
from test_emacs import drive

DRIVER = Path(__file__).with_name("dap_drive.el")
TEMPLATE = "Hermes Workflow: debug this design"
ECHO_AGENT = REPO / "examples" / "agents" / "echo_agent.py"
EDITED = {"verdict": "approve", "score": 9, "issues": ["edited in Emacs"]}


def named(variables: list[dict]) -> dict[str, dict]:
    return {v["name"]: v for v in variables}


def review_flow_without_sign_off() -> str:
    """examples/review-flow.hwf.json without its approval (`publish` follows the condition
    directly), so no answer is needed on the way."""
    design = json.loads((REPO / "examples" / "review-flow.hwf.json").read_text(encoding="utf-8"))
    design["name"] = "review-no-sign-off"
    design["nodes"] = [n for n in design["nodes"] if n["id"] != "sign-off"]
    for node in design["nodes"]:
        if "after" in node:
            node["after"] = ["good-enough" if p == "sign-off" else p for p in node["after"]]
    return json.dumps(design, indent=2) + "\n"


def test_dap_mode_stops_before_publish_shows_review_edits_it_and_continues(tmp_path: Path) -> None:
    if not Path("/usr/share/emacs/site-lisp/elpa/dap-mode-0.7").is_dir():
        editor(None, "dap-mode (Debian's elpa-dap-mode)")
    design = tmp_path / "review.hwf.json"
    text = review_flow_without_sign_off()
    design.write_text(text, encoding="utf-8")
    publish_line = text.splitlines().index('      "id": "publish",') + 1
    # the breakpoint goes on the line below the id (any line of the node's object will do);
    # the frame shows the node at its id line
    seen = drive(snippet("tested", "emacs-dap-mode"), design, tmp_path, driver=DRIVER, timeout=150,
                 HWF_TEMPLATE=TEMPLATE, HWF_BREAK_LINE=str(publish_line + 1),
                 HWF_EDIT_NAME="review", HWF_EDIT_VALUE=json.dumps(EDITED),
                 HWF_AGENT_COMMAND=f"python3 {ECHO_AGENT}")

    top, *upstream = seen["stopped"]
    assert (top["name"], top["line"], top["path"]) == ("publish (output)", publish_line, str(design))
    assert [f["name"].split(" ")[0] for f in upstream] == ["good-enough", "review", "draft", "start"]
    assert seen["buffer"] == str(design), "dap-mode did not show the design at the stop"
    scopes = {s["name"]: named(s["variables"]) for s in seen["scopes"]}
    assert set(scopes) == {"Input of publish", "Outputs", "Answers"}
    review = scopes["Outputs"]["review"]
    assert review["value"] == "{…} 3 keys"
    assert (named(review["children"])["verdict"]["value"], named(review["children"])["score"]["value"]) \
        == ('"approve"', "8")  # the echo agent's verdict
    assert scopes["Outputs"]["good-enough"]["value"] == "true"
    assert scopes["Input of publish"]["target"]["value"] == '"slack:#reviews"'
    assert set(named(scopes["Input of publish"]["collects"]["children"])) == {"good-enough", "draft", "review"}
    edit = seen["edit"]
    edited = named(named(edit["after"])["review"]["children"])
    assert edit["scope"] == "Outputs" and (edited["score"]["value"], edited["issues"]["value"]) == ("9", "[…] 1 item")
    assert seen["ended"] is True, f"the session did not end: {seen.get('output')}"

    (run_file,) = (tmp_path / "hermes-home" / "workflow-runs").glob("*.json")
    run = json.loads(run_file.read_text(encoding="utf-8"))
    assert run["status"] == "completed"
    assert run["outputs"]["review"] == EDITED
    assert run["outputs"]["publish"]["review"] == EDITED, "publish did not get the edited review"
    assert [e["node"] for e in run["debug"]["edits"]] == ["review"]
