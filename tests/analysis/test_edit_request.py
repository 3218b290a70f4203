"""The canvas's edit requests applied to a text (the Hermes dashboard's edits): each
request gives the design the edit code's change, and a malformed one names its argument."""

from __future__ import annotations

import json
from typing import Any

import pytest

from hwf_lsp.analysis.design_edits import DesignEditError
from hwf_lsp.analysis.edit_request import EditRequestError, apply_edits, edit_text

TEXT = """{
  "name": "flow",
  "nodes": [
    {"id": "start", "type": "trigger"},
    {"id": "draft", "type": "agent", "prompt": "Draft it", "after": ["start"]},
    {"id": "gate", "type": "approval", "question": "Ship?", "after": ["draft"]}
  ]
}
"""


def nodes(text: str) -> dict[str, dict[str, Any]]:
    return {n["id"]: n for n in json.loads(text)["nodes"]}


@pytest.mark.parametrize(("request_", "new_id", "expected"), [
    ({"edit": "addNode", "kind": "agent", "after": "gate"}, "agent1",
     {"agent1": {"id": "agent1", "type": "agent", "prompt": "", "after": ["gate"]}}),
    ({"edit": "addNode", "kind": "note", "after": None}, "note1",
     {"note1": {"id": "note1", "type": "note", "text": ""}}),
    ({"edit": "connect", "from": "start", "to": "gate"}, None,
     {"gate": {"id": "gate", "type": "approval", "question": "Ship?",
               "after": ["draft", "start"]}}),
    ({"edit": "disconnect", "from": "draft", "to": "gate"}, None,
     {"gate": {"id": "gate", "type": "approval", "question": "Ship?", "after": []}}),
    ({"edit": "renameNode", "id": "draft", "newId": "write"}, "write",
     {"write": {"id": "write", "type": "agent", "prompt": "Draft it", "after": ["start"]},
      "gate": {"id": "gate", "type": "approval", "question": "Ship?", "after": ["write"]}}),
    ({"edit": "setField", "id": "draft", "field": "retries", "value": 2}, None,
     {"draft": {"id": "draft", "type": "agent", "prompt": "Draft it", "after": ["start"],
                "retries": 2}}),
    ({"edit": "deleteNode", "id": "draft"}, None,
     {"gate": {"id": "gate", "type": "approval", "question": "Ship?", "after": []}}),
])
def test_each_edit_changes_only_what_it_is_about(request_: dict[str, Any], new_id: str | None,
                                                 expected: dict[str, Any]) -> None:
    """`expected`: the changed nodes' members (a new node's placeholders aside)."""
    edited = edit_text(TEXT, request_)
    assert edited.id == new_id
    after = nodes(edited.text)
    for node_id, members in expected.items():
        assert {k: after[node_id].get(k) for k in members} == members
    assert edited.text.startswith('{\n  "name": "flow",\n  "nodes": [\n')  # layout kept
    assert set(nodes(TEXT)) - set(after) <= {request_.get("id")}


@pytest.mark.parametrize(("request_", "argument"), [
    ({}, "edit"),
    ({"edit": "explode"}, "edit"),
    ({"edit": "connect", "from": "start"}, "to"),
    ({"edit": "connect", "from": "start", "to": 3}, "to"),
    ({"edit": "addNode", "kind": "agent", "after": 7}, "after"),
    ({"edit": "setField", "id": "draft", "field": "retries"}, "value"),
    ({"edit": "deleteNode", "id": "draft", "force": True}, "force"),
])
def test_a_malformed_request_names_its_argument(request_: dict[str, Any],
                                                argument: str) -> None:
    with pytest.raises(EditRequestError) as caught:
        edit_text(TEXT, request_)
    assert caught.value.argument == argument and str(caught.value)


@pytest.mark.parametrize(("text", "request_", "says"), [
    (TEXT, {"edit": "connect", "from": "gate", "to": "draft"}, "cycle"),
    (TEXT, {"edit": "deleteNode", "id": "nope"}, "is not a node"),
    ('{"name": "flow", "nodes": [', {"edit": "deleteNode", "id": "start"}, "not valid JSON"),
])
def test_an_edit_the_design_refuses_says_why(text: str, request_: dict[str, Any],
                                            says: str) -> None:
    with pytest.raises(DesignEditError, match=says):
        edit_text(text, request_)


def test_the_callers_own_keys_are_not_refused() -> None:
    edited = edit_text(TEXT, {"edit": "deleteNode", "id": "gate", "text": "ignored"},
                       known=("text",))
    assert "gate" not in nodes(edited.text)


def test_edits_apply_from_the_end_in_any_order() -> None:
    assert apply_edits("abcdef", [(0, 1, "X"), (4, 6, ""), (2, 2, "-")]) == "Xb-cd"


def test_the_requests_are_the_canvas_messages_and_the_editors_commands() -> None:
    """The dashboard's edits are VS Code's: each request is a `protocol.ts` `EditRequest`
    (same edit names, same fields in the same order) and computes with the function the
    server's `hwf.edit.*` command of that name uses."""
    import re
    from pathlib import Path

    from hwf_lsp.analysis.edit_request import EDIT_ARGUMENTS
    from hwf_lsp.server.features.canvas import EDITS

    protocol = (Path(__file__).parents[2] / "vscode-extension" / "src" / "model"
                / "protocol.ts").read_text(encoding="utf-8")
    union = protocol.split("export type EditRequest =", 1)[1].split(";\n\n", 1)[0]
    canvas = {m[1]: re.findall(r"(\w+):", m[2])
              for m in re.finditer(r"\{ edit: '(\w+)';([^}]*)\}", union)}
    assert canvas == {kind: [name for name, _ in arguments]
                      for kind, (_, arguments) in EDIT_ARGUMENTS.items()}
    for kind, (compute, arguments) in EDIT_ARGUMENTS.items():
        command = EDITS[f"hwf.edit.{kind}"]
        assert (command.compute, len(command.arguments)) == (compute, len(arguments))
