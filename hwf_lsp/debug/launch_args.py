"""The `launch` request's arguments (docs/debugging.md), checked into a `LaunchConfig`.

Names are the contract's: `design` (required), `agentCommand`, `deliveryCommand`,
`testCase` (`<file>.hwf-test.json#<case name>`), `replay` (a run id), `from` (a node id),
`stopOnEntry`.  Keys a client adds of its own (`type`, `request`, `name`, `cwd`, …) are
ignored, but `cwd` resolves a relative path.  Anything wrong is one `LaunchError` naming
the argument; nothing is created before every argument has been checked.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hwf_lsp.rules.design_test_check import DesignCase, DesignTestFile
from hwf_lsp.rules.names import check_run_id
from hwf_lsp.workflow.design_files import design_from_text
from hwf_lsp.workflow.design_test_files import load_test_file
from hwf_lsp.workflow.runner import check_startable
from hwf_lsp.workflow.stores import read_text_file


class LaunchError(ValueError):
    """A launch argument that cannot be used; `argument` names it."""

    def __init__(self, argument: str, message: str) -> None:
        super().__init__(f"{argument}: {message}")
        self.argument = argument


@dataclass
class LaunchConfig:
    design_path: Path
    design_text: str
    """The file's text at launch: before each step the file is compared with it."""
    design: dict[str, Any]
    name: str
    plan_ids: list[str]
    agent_command: str | None = None
    delivery_command: str | None = None
    test: DesignTestFile | None = None
    case: DesignCase | None = None
    replay: str | None = None
    from_node: str | None = None
    stop_on_entry: bool = False

    def marker(self) -> dict[str, Any]:
        """What the run file's `debug` key says about how it was launched."""
        found: dict[str, Any] = {"adapter": "hwf debug-adapter", "edits": []}
        if self.case is not None and self.test is not None:
            found["testCase"] = f"{self.test.path}#{self.case.name}"
        if self.replay:
            found["replay"] = self.replay
        return found


def _text(arguments: dict[str, Any], key: str) -> str | None:
    value = arguments.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise LaunchError(key, f"expected a string, got {type(value).__name__}")
    return value


def _path(text: str, arguments: dict[str, Any]) -> Path:
    path = Path(os.path.expanduser(text))
    cwd = arguments.get("cwd")
    if not path.is_absolute() and isinstance(cwd, str) and cwd:
        path = Path(cwd) / path
    return path.absolute()


def _design(arguments: dict[str, Any]) -> tuple[Path, str, dict[str, Any], str, list[str]]:
    given = _text(arguments, "design")
    if given is None:
        raise LaunchError("design", "required: the path of the design file to debug")
    path = _path(given, arguments)
    try:
        text = read_text_file(path)
        design, name = design_from_text(text, path)
    except FileNotFoundError:
        raise LaunchError("design", f"{path}: no such file") from None
    except (OSError, ValueError) as exc:
        raise LaunchError("design", f"{path}: {exc}") from None
    try:
        plan = check_startable(design, f"design {name!r}")
    except ValueError as exc:
        raise LaunchError("design", f"{path}: {exc}") from None
    return path, text, design, name, [step["id"] for step in plan]


def _test_case(given: str, arguments: dict[str, Any], design_path: Path
               ) -> tuple[DesignTestFile, DesignCase]:
    file_part, sep, case_name = given.partition("#")
    if not sep or not file_part or not case_name:
        raise LaunchError("testCase", f"{given!r}: expected <file>.hwf-test.json#<case name>")
    path = _path(file_part, arguments)
    try:
        cwd = arguments.get("cwd")  # the project, outside a repository (as `hwf test`'s)
        test = load_test_file(path, with_expect=False,
                              roots=(Path(cwd),) if isinstance(cwd, str) and cwd else ())
    except FileNotFoundError:
        raise LaunchError("testCase", f"{path}: no such file") from None
    except ValueError as exc:
        raise LaunchError("testCase", f"{path}: {exc}") from None
    if Path(test.design_path).resolve() != design_path.resolve():
        raise LaunchError("testCase", f"{path} tests {test.design_path}, not the launched "
                          f"design {design_path}")
    for case in test.cases:
        if case.name == case_name:
            return test, case
    names = ", ".join(repr(case.name) for case in test.cases)
    raise LaunchError("testCase", f"{path} has no case {case_name!r} (its cases: {names})")


def parse_launch(arguments: Any) -> LaunchConfig:
    """The launch configuration, or LaunchError for the first argument that is wrong."""
    if not isinstance(arguments, dict):
        raise LaunchError("arguments", "expected an object")
    path, text, design, name, plan_ids = _design(arguments)
    config = LaunchConfig(path, text, design, name, plan_ids,
                          agent_command=_text(arguments, "agentCommand"),
                          delivery_command=_text(arguments, "deliveryCommand"))
    stop = arguments.get("stopOnEntry", False)
    if not isinstance(stop, bool):
        raise LaunchError("stopOnEntry", f"expected true or false, got {stop!r}")
    config.stop_on_entry = stop
    test_case = _text(arguments, "testCase")
    if test_case is not None:
        config.test, config.case = _test_case(test_case, arguments, path)
    replay = _text(arguments, "replay")
    if replay is not None:
        try:
            config.replay = check_run_id(replay)
        except ValueError as exc:
            raise LaunchError("replay", str(exc)) from None
    config.from_node = _text(arguments, "from")
    if config.from_node is not None and config.from_node not in plan_ids:
        raise LaunchError("from", f"{config.from_node!r} is not a step of design {name!r} "
                          f"(steps: {', '.join(plan_ids)})")
    if config.test is not None and config.agent_command is not None:
        raise LaunchError("agentCommand", "a testCase launch uses the case's mocked agents: "
                          "give one or the other")
    return config
