"""Designs the Hermes tests run: small, and each with the kinds of step a test needs."""

from __future__ import annotations

import copy
from typing import Any

REVIEW: dict[str, Any] = {
    "name": "review",
    "nodes": [
        {"id": "start", "type": "trigger"},
        {"id": "draft", "type": "agent", "prompt": "Draft release notes for v2",
         "model": "big-model", "after": ["start"]},
        {"id": "gate", "type": "approval", "question": "Ship these notes?",
         "options": ["ship", "hold"], "after": ["draft"]},
        {"id": "publish", "type": "output", "deliver": "notification",
         "after": ["draft", "gate"]},
    ],
}
"""trigger → agent (with a model) → approval → output: parks twice, then delivers."""

ONE_AGENT: dict[str, Any] = {
    "name": "solo",
    "nodes": [
        {"id": "t", "type": "trigger"},
        {"id": "think", "type": "agent", "prompt": "Say a number", "model": "big-model",
         "after": ["t"]},
        {"id": "done", "type": "output", "after": ["think"]},
    ],
}


def review() -> dict[str, Any]:
    return copy.deepcopy(REVIEW)


def one_agent(**agent_fields: Any) -> dict[str, Any]:
    design = copy.deepcopy(ONE_AGENT)
    design["nodes"][1].update(agent_fields)
    return design
