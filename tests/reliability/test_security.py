"""Security: hostile names never reach the filesystem, data is never code, designs never
choose what runs, pathological conditions are bounded, model overrides need consent.
"""

from __future__ import annotations

import ast
import builtins
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from hwf_lsp.analysis.findings import check_text
from hwf_lsp.rules.conditions import ConditionError, parse_condition
from hwf_lsp.rules.names import check_design_name, check_run_id
from hwf_lsp.workflow import validate_designer_graph
from hwf_lsp.workflow.delivery import Delivery
from hwf_lsp.workflow.locks import RunLock
from hwf_lsp.workflow.paths import safe_child
from hwf_lsp.workflow.runner import Runner
from hwf_lsp.workflow.seams import CallableAgentSeam, CommandAgentSeam
from hwf_lsp.workflow.stores import DesignStore, RunStore

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "hwf_lsp"

# --- 1. hostile names are refused before the filesystem is touched ---------------------

BAD_DESIGN_NAMES: list[Any] = [
    "../evil", "../../etc/passwd", "a/../../b", "a/b", "a\\b", "/etc/passwd", "/abs",
    "C:\\windows", "a\x00b", "\x00", "", ".", "..", "...", ".hidden", "-dash",
    "con", "nul", "aux", "prn", "com1", "lpt9", "con.json", "nul.tar",
    "Upper", "a" * 65, "name\n", "na me", "ünïcode", "a\u2028b", "emoji\U0001f600",
    None, 42, ["a"], {"a": 1}, b"bytes",
]
BAD_RUN_IDS: list[Any] = [
    "../../etc/passwd", "../abcdef", "abcdef/..", "/abcdef", "abcde", "a" * 33,
    "ABCDEF", "abcdeg", "abcdef\x00", "abcdef\n", "abc def", ".", "..", "",
    "0123456789abcdef0123456789abcdef0", None, 123456, ["abcdef"],
]

FS_FUNCTIONS = ("open", "stat", "lstat", "mkdir", "makedirs", "replace", "rename", "unlink",
                "remove", "rmdir", "scandir", "listdir", "access", "chmod", "symlink",
                "link", "utime", "truncate")


@pytest.fixture
def stores(tmp_path: Path) -> tuple[DesignStore, RunStore]:
    return DesignStore(tmp_path / "workflow-designs"), RunStore(tmp_path / "workflow-runs")


class Tripwire:
    """Inside `with tripwire:` every os/open filesystem entry point records its call and raises.

    Active only around the code under test, so pytest can still read files to report.
    """

    def __init__(self) -> None:
        self.touched: list[str] = []
        self._saved: list[tuple[Any, str, Any]] = []

    def _trap(self, name: str):
        def call(*args: Any, **kwargs: Any) -> Any:
            self.touched.append(f"{name}{args[:1]!r}")
            raise AssertionError(f"filesystem touched: {name}{args[:1]!r}")
        return call

    def __enter__(self) -> Tripwire:
        targets = [(os, name) for name in FS_FUNCTIONS if hasattr(os, name)]
        targets += [(builtins, "open"), (io, "open")]
        for owner, name in targets:
            self._saved.append((owner, name, getattr(owner, name)))
            setattr(owner, name, self._trap(f"{owner.__name__}.{name}"))
        return self

    def __exit__(self, *exc: object) -> None:
        while self._saved:
            owner, name, original = self._saved.pop()
            setattr(owner, name, original)


@pytest.fixture
def tripwire() -> Tripwire:
    return Tripwire()


def _design_operations(designs: DesignStore, name: Any) -> list:
    valid = {"name": "ok", "nodes": [{"id": "t", "type": "trigger"}]}
    return [lambda: designs.path(name), lambda: designs.load(name),
            lambda: designs.save(name, valid), lambda: check_design_name(name)]


def _run_operations(runs: RunStore, run_id: Any) -> list:
    runner = Runner(runs)
    state = {"run_id": run_id, "name": "x"}
    return [lambda: runs.path(run_id), lambda: runs.load(run_id), lambda: runs.save(state),
            lambda: runs.sweep(run_id), lambda: RunLock(runs.root, run_id),
            lambda: runner.advance(run_id), lambda: runner.answer(run_id, "approve"),
            lambda: runner.respond(run_id, output="x"), lambda: runner.cancel(run_id),
            lambda: check_run_id(run_id)]


def _outcomes(operations: list, tripwire: Tripwire) -> list[str]:
    """Run each operation under the tripwire; "accepted" or "<Error>: <message>" for each."""
    outcomes = []
    for operation in operations:
        with tripwire:
            try:
                operation()
                outcomes.append("accepted")
            except Exception as exc:  # noqa: BLE001 - recorded and checked by the caller
                outcomes.append(f"{type(exc).__name__}: {exc}")
    return outcomes


@pytest.mark.parametrize("name", BAD_DESIGN_NAMES, ids=repr)
def test_bad_design_name_refused_without_touching_the_filesystem(
    stores: tuple[DesignStore, RunStore], tripwire: Tripwire, name: Any
) -> None:
    designs, _ = stores
    outcomes = _outcomes(_design_operations(designs, name), tripwire)
    assert tripwire.touched == []
    assert all(o.startswith("ValueError") and "design name" in o for o in outcomes), outcomes


@pytest.mark.parametrize("run_id", BAD_RUN_IDS, ids=repr)
def test_bad_run_id_refused_without_touching_the_filesystem(
    stores: tuple[DesignStore, RunStore], tripwire: Tripwire, run_id: Any
) -> None:
    _, runs = stores
    outcomes = _outcomes(_run_operations(runs, run_id), tripwire)
    assert tripwire.touched == []
    assert all(o.startswith("ValueError") and "run id" in o for o in outcomes), outcomes


def test_the_tripwire_itself_fires(tripwire: Tripwire, tmp_path: Path) -> None:
    """Guard against a vacuous pass: a legal name does reach the (trapped) filesystem."""
    designs = DesignStore.__new__(DesignStore)
    designs.root = tmp_path
    with pytest.raises(AssertionError, match="filesystem touched"), tripwire:
        designs.load("legal-name")
    assert tripwire.touched


def test_symlink_escaping_its_root_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "workflow-runs"
    root.mkdir()
    outside = tmp_path / "outside.json"
    outside.write_text("{}")
    (root / "abcdef.json").symlink_to(outside)
    (root / "sub").mkdir()
    with pytest.raises(ValueError, match="escapes"):
        safe_child(root, "abcdef.json")
    with pytest.raises(ValueError):
        RunStore(root).load("abcdef")
    assert safe_child(root, "abcdef0.json") == root / "abcdef0.json"


def test_cli_refuses_hostile_run_ids_with_exit_2(tmp_path: Path) -> None:
    env = {**os.environ, "HERMES_HOME": str(tmp_path)}
    for args in (["resume", "../../etc/passwd"], ["show", "/etc/passwd"],
                 ["answer", "abc\x01def", "approve"], ["cancel", ".."]):
        done = subprocess.run([sys.executable, "-m", "hwf_lsp.cli", *args], env=env,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert "run id" in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) in ([], ["workflow-runs"])


# --- 2. no eval / exec / compile / pickle / shell anywhere in the package --------------

FORBIDDEN_BUILTINS = frozenset({"eval", "exec", "compile", "__import__", "execfile", "input"})
FORBIDDEN_ATTRIBUTES = frozenset({
    ("builtins", "eval"), ("builtins", "exec"), ("builtins", "compile"),
    ("builtins", "__import__"), ("pickle", "loads"), ("pickle", "load"),
    ("marshal", "loads"), ("marshal", "load"), ("os", "system"), ("os", "popen"),
    ("shelve", "open"), ("yaml", "load"), ("code", "interact"),
})
SHELL_FUNCTIONS = frozenset({"run", "Popen", "call", "check_call", "check_output",
                             "getoutput", "getstatusoutput"})


def dangerous_calls(source: str, filename: str = "<snippet>") -> list[str]:
    """Every call in `source` that could run data as code or through a shell."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        where = f"{filename}:{node.lineno}"
        if isinstance(func, ast.Name) and func.id in FORBIDDEN_BUILTINS:
            found.append(f"{where}: {func.id}()")
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            pair = (func.value.id, func.attr)
            if pair in FORBIDDEN_ATTRIBUTES:
                found.append(f"{where}: {pair[0]}.{pair[1]}()")
            if func.value.id == "subprocess" and func.attr in {"getoutput", "getstatusoutput"}:
                found.append(f"{where}: subprocess.{func.attr}() runs a shell")
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        for keyword in node.keywords:
            if keyword.arg == "shell" and name in SHELL_FUNCTIONS and not (
                isinstance(keyword.value, ast.Constant) and keyword.value.value is False
            ):
                found.append(f"{where}: {name}(shell=...)")
    return found


@pytest.mark.parametrize("source, expected", [
    ("eval('1')", ["eval()"]),
    ("exec(code)", ["exec()"]),
    ("compile(s, 'f', 'exec')", ["compile()"]),
    ("__import__('os')", ["__import__()"]),
    ("import builtins\nbuiltins.eval('x')", ["builtins.eval()"]),
    ("import pickle\npickle.loads(b)", ["pickle.loads()"]),
    ("import os\nos.system('ls')", ["os.system()"]),
    ("import subprocess\nsubprocess.run('ls', shell=True)", ["run(shell=...)"]),
    ("from subprocess import Popen\nPopen(cmd, shell=flag)", ["Popen(shell=...)"]),
    ("import subprocess\nsubprocess.getoutput('ls')", ["subprocess.getoutput() runs a shell"]),
    ("import re\nre.compile('a+')", []),
    ("pattern.compile()", []),
    ("import subprocess\nsubprocess.run(['ls'], shell=False)", []),
    ("literal_eval = 1\nast.literal_eval(s)", []),
])
def test_the_checker_finds_what_it_should(source: str, expected: list[str]) -> None:
    found = [entry.split(": ", 1)[1] for entry in dangerous_calls(source)]
    assert found == expected


def test_no_module_runs_data_as_code() -> None:
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) >= 20, modules  # the walk really covers the package
    found = [hit for path in modules
             for hit in dangerous_calls(path.read_text(encoding="utf-8"), str(path.relative_to(REPO)))]
    assert found == []


# --- 3. a design never chooses what runs ------------------------------------------------

HOSTILE_FIELDS = {
    "command": ["sh", "-c", "touch {marker}"], "shell": "touch {marker}", "exec": "touch {marker}",
    "cmd": "touch {marker}", "argv": ["touch", "{marker}"], "script": "touch {marker}",
    "agent_command": "touch {marker}", "delivery_command": "touch {marker}",
    "channel_command": "touch {marker}", "hook": "touch {marker}", "run": "touch {marker}",
}


def _hostile_design(marker: Path) -> dict[str, Any]:
    hostile = {key: json.loads(json.dumps(value).replace("{marker}", str(marker)))
               for key, value in HOSTILE_FIELDS.items()}
    return {
        "name": "hostile", **hostile,
        "nodes": [
            {"id": "t", "type": "trigger", **hostile},
            {"id": "a", "type": "agent", "prompt": "say hi", "after": ["t"], **hostile},
            {"id": "c", "type": "condition", "expression": "out.a.ok == true", "after": ["a"],
             **hostile},
            {"id": "o", "type": "output", "deliver": "channel", "target": "chat:1",
             "after": ["c"], **hostile},
            {"id": "n", "type": "output", "deliver": "notification", "after": ["a"], **hostile},
        ],
    }


def test_fields_naming_commands_never_run_anything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "pwned"
    design = _hostile_design(marker)
    assert validate_designer_graph(design) == []  # unknown fields are not a rulebook defect

    spawned: list[list[str]] = []

    class RecordingPopen(subprocess.Popen):
        def __init__(self, argv, *args, **kwargs):
            spawned.append(list(argv) if not isinstance(argv, (str, bytes)) else [argv])
            super().__init__(argv, *args, **kwargs)

    def refuse(name: str):
        def call(*args, **kwargs):
            spawned.append([name, *map(str, args[:2])])
            raise AssertionError(f"{name} called")
        return call

    monkeypatch.setattr(subprocess, "Popen", RecordingPopen)
    for name in ("system", "popen", "execv", "execve", "execvp", "spawnv", "posix_spawn",
                 "posix_spawnp", "fork"):
        if hasattr(os, name):
            monkeypatch.setattr(os, name, refuse(f"os.{name}"))

    prompts: list[str] = []
    notified: list[str] = []
    channel_log = tmp_path / "channel.log"
    channel = [sys.executable, "-c",
               f"import sys; open({str(channel_log)!r}, 'a').write(sys.stdin.read())"]
    runner = Runner(
        RunStore(tmp_path / "workflow-runs"),
        agent=CallableAgentSeam(lambda request: prompts.append(request.prompt) or {
            "structured": {"ok": True}}),
        delivery=Delivery(notify=notified.append, channel_argv=channel),
    )
    state = runner.start(design)

    assert state["status"] == "completed", state.get("error")
    assert prompts == ["say hi"]
    assert spawned == [channel]  # only the configured seam ran
    assert len(notified) == 1 and json.loads(channel_log.read_text())["key"].endswith(":o")
    assert not marker.exists()


def test_cli_run_of_a_hostile_design_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = tmp_path / "hostile.hwf.json"
    path.write_text(json.dumps(_hostile_design(marker)))
    env = {key: value for key, value in os.environ.items()
           if key not in ("HWF_AGENT_COMMAND", "HWF_DELIVERY_COMMAND")}
    env["HERMES_HOME"] = str(tmp_path / "home")
    done = subprocess.run([sys.executable, "-m", "hwf_lsp.cli", "run", str(path)], env=env,
                          capture_output=True, text=True, timeout=60)
    assert "Traceback" not in done.stderr, done.stderr
    (state_file,) = (tmp_path / "home" / "workflow-runs").glob("*.json")
    assert json.loads(state_file.read_text())["status"] == "awaiting_agent"  # no seam: parks
    assert not marker.exists()


# --- 4. pathological conditions get a clear defect in bounded time ---------------------

BIG = 1_000_000
PATHOLOGICAL_CONDITIONS = {
    "1 MB literal": "out.a.x == " + "1" * BIG,
    "1 MB string": 'out.a.x == "' + "x" * BIG + '"',
    "1 MB path": "out.a" + ".b" * (BIG // 2) + " == 1",
    "10k segments deep": "out.a" + ".b" * 10_000 + " == 1",
    "10k parentheses deep": "(" * 10_000 + "out.a.x == 1" + ")" * 10_000,
    "10k operators": "out.a.x " + "== " * 10_000 + "1",
    "10k brackets": "out.a" + "[0]" * 10_000 + " == 1",
    "1 MB of spaces": "out.a.x" + " " * BIG + "== 1",
    "1 MB of NULs": "\x00" * BIG,
    "deep but short": "out.a" + ".b" * 40 + " == 1",
}
TIME_BOUND_S = 2.0


def _design_with_condition(expression: str) -> dict[str, Any]:
    return {"name": "c", "nodes": [
        {"id": "t", "type": "trigger"},
        {"id": "a", "type": "agent", "prompt": "p", "after": ["t"]},
        {"id": "c", "type": "condition", "expression": expression, "after": ["a"]},
    ]}


@pytest.mark.parametrize("label", list(PATHOLOGICAL_CONDITIONS))
def test_pathological_condition_is_a_clear_defect_in_bounded_time(label: str) -> None:
    expression = PATHOLOGICAL_CONDITIONS[label]
    start = time.perf_counter()
    defects = validate_designer_graph(_design_with_condition(expression))
    validator_s = time.perf_counter() - start
    assert [(d["node"], d["field"]) for d in defects] == [("c", "expression")], defects
    assert len(defects[0]["msg"]) < 500  # the message does not echo a megabyte back
    assert validator_s < TIME_BOUND_S

    start = time.perf_counter()
    with pytest.raises(ConditionError):
        parse_condition(expression)
    assert time.perf_counter() - start < TIME_BOUND_S

    start = time.perf_counter()
    _, findings = check_text(json.dumps(_design_with_condition(expression)))
    assert time.perf_counter() - start < TIME_BOUND_S
    errors = [f for f in findings if f.severity == "error"]
    assert [(f.node, f.field) for f in errors] == [("c", "expression")], errors


# --- 5. a model override is ignored unless the user allows it --------------------------

AGENT_RECORDER = """
import json, sys
request = json.load(sys.stdin)
with open(sys.argv[1], "a") as log:
    log.write(json.dumps(request) + "\\n")
print(json.dumps({"output": "done"}))
"""


@pytest.mark.parametrize("allowed", [False, True])
def test_model_override_needs_the_users_consent(tmp_path: Path, allowed: bool) -> None:
    log = tmp_path / "requests.jsonl"
    agent = tmp_path / "agent.py"
    agent.write_text(AGENT_RECORDER)
    design = {"name": "m", "nodes": [
        {"id": "t", "type": "trigger"},
        {"id": "a", "type": "agent", "prompt": "p", "model": "attacker-model", "after": ["t"]},
    ]}
    runner = Runner(RunStore(tmp_path / "runs"), allow_model_override=allowed,
                    agent=CommandAgentSeam([sys.executable, str(agent), str(log)]))
    assert runner.start(design)["status"] == "completed"
    (request,) = [json.loads(line) for line in log.read_text().splitlines()]
    assert ("model" in request) is allowed
    assert request.get("model", "attacker-model") == "attacker-model"


GATE_OPEN = ("plugins:\n  entries:\n    visual-workflow:\n      llm:\n"
             "        allow_model_override: true\n")


@pytest.mark.parametrize(("config", "flag", "sent"), [
    (None, [], False),
    (None, ["--allow-model-override"], False),  # a flag can never open the gate
    ("plugins: {}\n", [], False),
    (GATE_OPEN, [], True),  # the gate is $HERMES_HOME/config.yaml
    (GATE_OPEN, ["--no-model-override"], False),  # a flag may only narrow it
])
def test_cli_model_override_needs_the_trust_gate(tmp_path: Path, config: str | None,
                                                 flag: list[str], sent: bool) -> None:
    log = tmp_path / "requests.jsonl"
    agent = tmp_path / "agent.py"
    agent.write_text(AGENT_RECORDER)
    design = tmp_path / "m.hwf.json"
    design.write_text(json.dumps({"name": "m", "nodes": [
        {"id": "t", "type": "trigger"},
        {"id": "a", "type": "agent", "prompt": "p", "model": "attacker-model", "after": ["t"]},
    ]}))
    home = tmp_path / "home"
    home.mkdir()
    if config is not None:
        (home / "config.yaml").write_text(config)
    env = {**os.environ, "HERMES_HOME": str(home)}
    env.pop("HWF_AGENT_COMMAND", None)
    command = f"{sys.executable} {agent} {log}"
    done = subprocess.run([sys.executable, "-m", "hwf_lsp.cli", "run", str(design),
                           "--agent-command", command, *flag], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    (request,) = [json.loads(line) for line in log.read_text().splitlines()]
    assert ("model" in request) is sent
    if flag == ["--allow-model-override"]:
        assert "cannot open the trust gate" in done.stderr
        assert "plugins.entries.visual-workflow.llm.allow_model_override" in done.stderr


# --- 6. the language server's run commands refuse hostile names too ----------------------

RUN_COMMANDS = ("hwf.resumeRun", "hwf.answerApproval", "hwf.respondAgent", "hwf.cancelRun")


def test_server_run_commands_refuse_hostile_names(tmp_path: Path) -> None:
    from rawlsp import RawLsp, open_params

    home, workspace = tmp_path / "home", tmp_path / "ws"
    workspace.mkdir()
    server = RawLsp(env={**os.environ, "HERMES_HOME": str(home)}, cwd=workspace)
    try:
        server.initialize(workspace)
        refused = 0
        for number, name in enumerate(["../../evil", "/abs", "a\x00b", "con", "..", "Upper"]):
            uri = (workspace / f"d{number}.hwf.json").as_uri()
            design = {"name": name, "nodes": [{"id": "t", "type": "trigger"}, {
                "id": "a", "type": "agent", "prompt": "p", "after": ["t"]}]}
            server.notify("textDocument/didOpen", open_params(uri, json.dumps(design)))
            response = server.request("workspace/executeCommand",
                                      {"command": "hwf.startRun", "arguments": [uri]})
            assert "design name" in response["error"]["message"], response
            refused += 1
        for command in RUN_COMMANDS:
            for run_id in ("../../etc/passwd", "/tmp/abcdef", "abcdef\x00", "ABCDEF", ".."):
                response = server.request("workspace/executeCommand", {
                    "command": command, "arguments": [run_id, {"output": "x"}]})
                assert "run id" in response["error"]["message"], (command, run_id, response)
                refused += 1
        assert refused == 26
        created = [p for p in tmp_path.rglob("*") if p.is_file()
                   and not p.name.endswith(".hwf.json")]
        assert created == [], created  # nothing written, in the home or anywhere near it
    finally:
        server.close()
