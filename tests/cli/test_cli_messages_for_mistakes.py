"""What `hwf` says about a user's mistakes (each one as a table of cases):

- a refused answer or response prints only its error, and records nothing;
- `hwf run` on a file that is not JSON says what `hwf check` says, at the same place;
- a misspelled design name or `after` id gets a did-you-mean;
- `hwf check` on a missing file prints one line, on an empty file one error;
- an approval whose options leave out `reject` is warned about.
"""

from __future__ import annotations

import re
import shutil

import pytest
from hwf_cli_helpers import AGENT, EXAMPLES, started_run_id

REVIEW = "examples/review-flow.hwf.json"
TRIGGER = '{"id": "start", "type": "trigger"}'


def design(*nodes: str, name: str = "typo") -> str:
    return '{\n  "name": "' + name + '",\n  "nodes": [\n    ' + ",\n    ".join(
        [TRIGGER, *nodes]) + "\n  ]\n}\n"


def park_review_at_approval(hwf) -> str:
    result = hwf("run", REVIEW, "--agent-command", AGENT)
    assert result.code == 3, result.stdout + result.stderr
    return started_run_id(result)


# --- a refusal prints only the error ------------------------------------------------

REFUSALS = [
    (["answer", "<id>", "maybe"], "'maybe' is not an option of approval 'sign-off'"),
    (["respond", "<id>", "--output", "x"], "is not waiting for an agent"),
    (["respond", "<id>", "--structured", '{"score": 9}'], "is not waiting for an agent"),
]


@pytest.mark.parametrize("args,says", REFUSALS, ids=[" ".join(a[::2]) for a, _ in REFUSALS])
def test_a_refusal_prints_only_its_error_and_records_nothing(hwf, args, says):
    run_id = park_review_at_approval(hwf)
    before = hwf.run_file(run_id).read_bytes()
    result = hwf(*[run_id if a == "<id>" else a for a in args])
    assert result.code == 2
    assert result.stdout == ""  # no "answered …" / "responded …" step line
    assert result.stderr.splitlines() == [result.stderr.strip()]
    assert says in result.stderr
    assert hwf.run_file(run_id).read_bytes() == before


# --- hwf run on text that is not JSON: the check's words and position ---------------

NOT_JSON = [
    ("trailing comma", '{"name": "x", "nodes": [{"id": "t", "type": "trigger"},]}',
     "Trailing comma"),
    ("missing comma", '{"name": "x"\n "nodes": []}', "2:2: Expected ',' or '}' after a member"),
    ("unterminated string", '{"name": "x, "nodes": []}', None),
    ("empty file", "", "Expected a JSON value"),
    ("a key without quotes", '{\n  name: "x"}', None),
]


def check_position_and_words(hwf, path: str) -> str:
    """`path:line:col: msg` of the first syntax error, as `hwf check` prints it."""
    checked = hwf("check", path)
    first = checked.stdout.splitlines()[0]
    where, rest = re.match(r"(.*:\d+:\d+): error\[json-syntax\] (.*)", first).groups()
    return f"{where}: {rest}"


@pytest.mark.parametrize("text,words", [c[1:] for c in NOT_JSON], ids=[c[0] for c in NOT_JSON])
def test_run_on_invalid_json_says_what_check_says(hwf, tmp_path, text, words):
    path = tmp_path / "broken.hwf.json"
    path.write_text(text, encoding="utf-8")
    said = check_position_and_words(hwf, str(path))
    assert words is None or said.endswith(words)
    result = hwf("run", str(path))
    assert result.code == 2 and result.stdout == ""
    assert result.stderr.startswith(f"hwf run: error: {said} (not valid JSON; ")
    assert "char " not in result.stderr and "Expecting" not in result.stderr


def test_run_of_a_stored_design_that_is_not_json_says_where_too(hwf):
    stored = hwf.home / "workflow-designs" / "bad.json"
    stored.parent.mkdir(parents=True)
    stored.write_text('{"name": "bad",\n "nodes": [{"id": "t", "type": "trigger"},]}')
    said = check_position_and_words(hwf, str(stored))
    result = hwf("run", "bad")
    assert result.code == 2
    assert result.stderr.startswith(f"hwf run: error: design 'bad': {said} (not valid JSON")
    assert said.endswith(":2:42: Trailing comma")


# --- did you mean -----------------------------------------------------------------

AFTER_TYPO = design('{"id": "ask", "type": "agent", "prompt": "p", "after": ["strat"]}')
# (case, args, exit code, stream, expected part); "<typo>" is a file with AFTER_TYPO
DID_YOU_MEAN = [
    ("stored design name", ["run", "revew-flow"], 2, "stderr",
     "no design named 'revew-flow' in {home}/workflow-designs — did you mean 'review-flow'?"),
    ("design file path", ["run", "examples/revew-flow.hwf.json"], 2, "stderr",
     "— did you mean 'examples/review-flow.hwf.json'?"),
    ("runs --design", ["runs", "--design", "helo-world"], 0, "stdout",
     "no runs matching --design helo-world in {home}/workflow-runs — did you mean "
     "'hello-world'?"),
    ("after id, hwf check", ["check", "<typo>"], 1, "stdout",
     "error[edges] after[0]: no node has the id \"strat\" — did you mean 'start'?"),
    ("after id, hwf run", ["run", "<typo>"], 1, "stderr",
     "ask/after: after[0]: no node has the id \"strat\" — did you mean 'start'?"),
    ("nothing alike", ["run", "zzz"], 2, "stderr", "in {home}/workflow-designs\n"),
]


@pytest.mark.parametrize("args,code,stream,part", [c[1:] for c in DID_YOU_MEAN],
                         ids=[c[0] for c in DID_YOU_MEAN])
def test_did_you_mean(hwf, tmp_path, args, code, stream, part):
    stored = hwf.home / "workflow-designs"
    stored.mkdir(parents=True)
    shutil.copy(EXAMPLES / "review-flow.hwf.json", stored / "review-flow.json")
    assert hwf("run", "examples/hello-world.hwf.json").code == 3  # a run of hello-world
    typo = tmp_path / "typo.hwf.json"
    typo.write_text(AFTER_TYPO, encoding="utf-8")
    result = hwf(*[str(typo) if a == "<typo>" else a for a in args])
    assert result.code == code, result.stdout + result.stderr
    assert part.format(home=hwf.home) in getattr(result, stream)


# --- hwf check: one line for a missing file, one error for an empty one ---------------

ONE_LINE = [
    ("missing file", None, 2, [], ["hwf check: error: {path}: no such file"]),
    ("empty file", "", 1, ["{path}:1:1: error[json-syntax] Expected a JSON value"],
     ["checked 1 file: 1 error, 0 warnings"]),
    ("blank file", "  \n", 1, ["{path}:1:1: error[json-syntax] Expected a JSON value"],
     ["checked 1 file: 1 error, 0 warnings"]),
]


@pytest.mark.parametrize("text,code,stdout,stderr", [c[1:] for c in ONE_LINE],
                         ids=[c[0] for c in ONE_LINE])
def test_check_says_it_once(hwf, tmp_path, text, code, stdout, stderr):
    path = tmp_path / "design.hwf.json"
    if text is not None:
        path.write_text(text, encoding="utf-8")
    result = hwf("check", str(path))
    assert result.code == code
    assert result.stdout.splitlines() == [line.format(path=path) for line in stdout]
    assert result.stderr.splitlines() == [line.format(path=path) for line in stderr]


def test_check_of_a_missing_and_a_good_file_counts_the_good_one(hwf):
    result = hwf("check", "examples/nope.hwf.json", "examples/hello-world.hwf.json")
    assert result.code == 2
    assert result.stderr.splitlines() == ["hwf check: error: examples/nope.hwf.json: no such file",
                                          "checked 1 file: 0 errors, 0 warnings"]


# --- an approval that no answer can stop ----------------------------------------------

SHIP = '{"id": "ship", "type": "approval", "question": "Ship?", "options": ["ship", "hold"]'
NO_REJECT = [
    ("options without reject", SHIP + ', "after": ["start"]}', ["options"]),
    ("and a deadline that answers reject", SHIP + ', "timeout_minutes": 60, '
     '"after": ["start"]}', ["options", "timeout_minutes"]),
    ("and on_timeout: reject", SHIP + ', "timeout_minutes": 60, "on_timeout": "reject", '
     '"after": ["start"]}', ["options", "on_timeout"]),
    ("escalate never answers reject", SHIP + ', "timeout_minutes": 60, '
     '"on_timeout": "escalate", "after": ["start"]}', ["options"]),
    ("reject among the options", '{"id": "ship", "type": "approval", "question": "Ship?", '
     '"options": ["ship", "reject"], "timeout_minutes": 5, "after": ["start"]}', []),
    ("the default options", '{"id": "ship", "type": "approval", "question": "Ship?", '
     '"timeout_minutes": 5, "after": ["start"]}', []),
]


@pytest.mark.parametrize("node,fields", [c[1:] for c in NO_REJECT], ids=[c[0] for c in NO_REJECT])
def test_check_warns_about_an_approval_without_reject(hwf, tmp_path, node, fields):
    path = tmp_path / "ship.hwf.json"
    text = design(node, name="ship")
    path.write_text(text, encoding="utf-8")
    result = hwf("check", str(path))
    assert result.code == 0, result.stdout + result.stderr  # a warning never fails
    warned = [line for line in result.stdout.splitlines() if "warning[no-reject]" in line]
    line = text.splitlines().index("    " + node) + 1
    columns = [text.splitlines()[line - 1].index(f'"{f}": ') + len(f'"{f}": ') + 1
               for f in fields]
    assert [w.split(": ")[0] for w in warned] == [f"{path}:{line}:{c}" for c in columns]
    if fields:
        assert "no answer can stop this branch" in warned[0]
    if len(fields) > 1:
        assert "answers 'reject', which is not one of the options ('ship', 'hold')" in warned[1]
