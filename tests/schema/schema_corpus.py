"""Designs for the schema agreement test: valid ones by construction, and mutations.

`valid_design(rng)` builds a design the rulebook accepts (the test asserts it does),
exercising edge values on purpose: retries 3.0, timeout 4320, a blank-padded
prompt, a colourless note, a notification target without ':', unknown fields, an
unconstrained name.  `MUTATIONS` breaks one rule of a valid design each; every
entry says whether JSON Schema can express the defect it introduces.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hwf_lsp.rules import vocabulary as vocab
from hwf_lsp.rules.conditions import NAME_RE

REPO = Path(__file__).resolve().parents[2]

# --- valid designs ---------------------------------------------------------------

_WORDS = ("fetch", "summarize", "review", "notify", "check", "draft", "publish", "ask",
          "collect", "merge", "triage", "étape", "数据", "deploy")
_TEXTS = ("Do the thing.", "  padded prompt  ", "Résumé: ✓", "line one\nline two", "x",
          "Answer with JSON: {\"ok\": true}", "\u00a0non-breaking\u00a0")


def _fresh_id(rng: random.Random, taken: set[str], index: int) -> str:
    styles = (
        lambda: f"{rng.choice(_WORDS)}-{index}",
        lambda: f"{rng.choice(_WORDS)}_{index}",
        lambda: f"Step{index}",
        lambda: f"{rng.choice(_WORDS)} {index}",  # a space: legal, but no condition can read it
        lambda: f"{index}",
    )
    ident = rng.choice(styles)()
    while ident in taken:
        ident += "x"
    taken.add(ident)
    return ident


def _literal(rng: random.Random) -> str:
    return rng.choice((
        "1", "-2", "0", "2.5", "1e3", "-0.5E-2", "12345678901234567890",
        '"ok"', '""', r'"say \"hi\""', r'"tab\tand \u00e9"', '"✓ unicode"',
        "true", "false", "null",
    ))


def _expression(rng: random.Random, readable: list[str]) -> str:
    path = ".".join(rng.choice(("key", "status", "0", "3", "items", "a-b", "x_y", "10"))
                    for _ in range(rng.randint(1, 4)))
    op = rng.choice(vocab.CONDITION_OPERATORS)
    gap = rng.choice(("", " ", "  ", "\t"))
    lead, trail = rng.choice(("", " ")), rng.choice(("", " ", "\n"))
    return f"{lead}out.{rng.choice(readable)}.{path}{gap}{op}{gap}{_literal(rng)}{trail}"


def _maybe(rng: random.Random, node: dict, key: str, choices: tuple, p: float = 0.5) -> None:
    if rng.random() < p:
        node[key] = copy.deepcopy(rng.choice(choices))


def _payload(kind: str, rng: random.Random, node: dict, readable: list[str]) -> None:
    if kind == vocab.AGENT:
        node["prompt"] = rng.choice(_TEXTS)
        _maybe(rng, node, "retries", (0, 1, 2, 3, 0.0, 3.0))
        _maybe(rng, node, "timeout_minutes", (1, 15, 4320, 1.0, 4320.0))
        _maybe(rng, node, "profile", ("default", "", "research"))
        _maybe(rng, node, "model", ("model-name", "gpt-x"), 0.3)
    elif kind == vocab.CONDITION:
        node["expression"] = _expression(rng, readable)
    elif kind == vocab.APPROVAL:
        node["question"] = rng.choice(("Approve?", " Ship it? ", "Publish the notes?"))
        _maybe(rng, node, "options", (["approve", "reject"], ["yes"], ["a", "b", "c", " d "]))
        _maybe(rng, node, "timeout_minutes", (1, 60, 4320, 2.0))
        _maybe(rng, node, "on_timeout", vocab.ON_TIMEOUT_VALUES)
    elif kind == vocab.OUTPUT:
        roll = rng.random()
        if roll < 0.35:
            node["deliver"] = "channel"
            node["target"] = rng.choice(("slack:#reviews", ":", "mail:ops@example.com"))
        elif roll < 0.7:
            node["deliver"] = "notification"
            _maybe(rng, node, "target", ("no-colon-needed", "slack:#x"), 0.3)
        else:
            _maybe(rng, node, "target", ("anything",), 0.2)
    elif kind == vocab.NOTE:
        _maybe(rng, node, "text", ("Remember to ...", ""))
        _maybe(rng, node, "color", vocab.NOTE_COLORS)


def valid_design(rng: random.Random) -> dict[str, Any]:
    """A design the rulebook accepts: one trigger, a DAG over real non-note nodes."""
    count = rng.choice((1, 2, 3, 5, 8, 12, 20)) if rng.random() < 0.9 else vocab.MAX_NODES
    taken: set[str] = set()
    nodes: list[dict[str, Any]] = []
    runnable: list[str] = []  # ids a later node may run after (trigger and steps)
    readable: list[str] = []  # step ids a condition can name
    for index in range(count):
        kind = vocab.TRIGGER if index == 0 else rng.choice(vocab.STEP_KINDS + (vocab.NOTE,))
        if kind == vocab.CONDITION and not readable:
            kind = vocab.AGENT
        node: dict[str, Any] = {"id": _fresh_id(rng, taken, index), "type": kind}
        if kind != vocab.TRIGGER and kind != vocab.NOTE and rng.random() < 0.9:
            node["after"] = rng.sample(runnable, k=min(len(runnable), rng.randint(1, 2)))
        elif rng.random() < 0.2:
            node["after"] = []
        _maybe(rng, node, "title", ("A title", "", "Étape ✓"), 0.4)
        _payload(kind, rng, node, readable)
        _maybe(rng, node, "x-comment", ("unknown fields are not defects", 5, None), 0.1)
        nodes.append(node)
        if kind != vocab.NOTE:
            runnable.append(node["id"])
        if kind in vocab.STEP_KINDS and NAME_RE.fullmatch(node["id"]):
            readable.append(node["id"])
    rng.shuffle(nodes)  # list order is not run order
    design: dict[str, Any] = {"nodes": nodes}
    roll = rng.random()
    if roll < 0.7:
        design["name"] = f"design-{rng.randint(0, 999)}"
    elif roll < 0.8:
        design["name"] = 42  # the store checks names, not the rulebook
    if rng.random() < 0.3:
        design["$schema"] = "./schema/hermes-workflow-design.schema.json"
    if rng.random() < 0.1:
        design["description"] = "extra top-level keys are allowed"
    return design


def example_designs() -> list[tuple[str, Any]]:
    """Every JSON document under examples/, except the `*.expected.json` verdict files and
    the `*.hwf-test.json` design tests.

    A file that is not JSON at all (a syntax-error sample) has nothing to validate
    against a schema, so it is left out.
    """
    found = []
    for path in sorted((REPO / "examples").glob("**/*.json")):
        if path.name.endswith((".expected.json", ".hwf-test.json")):  # not designs
            continue
        try:
            found.append((str(path.relative_to(REPO)),
                          json.loads(path.read_text(encoding="utf-8"))))
        except ValueError:
            continue
    return found


# --- mutations ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Mutation:
    name: str
    rule: str
    """The vocabulary.RULES key the mutation breaks."""
    expressible: bool
    """Whether JSON Schema can express the defect (then both must catch it)."""
    apply: Callable[[dict, random.Random], bool]
    """Mutates the design in place; False when the design has no node to mutate."""


def _pick(design: dict, rng: random.Random, *kinds: str) -> dict | None:
    nodes = [n for n in design["nodes"] if n.get("type") in kinds]
    return rng.choice(nodes) if nodes else None


def _set(kinds: tuple[str, ...], key: str, value: Any) -> Callable[[dict, random.Random], bool]:
    def apply(design: dict, rng: random.Random) -> bool:
        node = _pick(design, rng, *kinds)
        if node is None:
            return False
        node[key] = copy.deepcopy(value)
        return True
    return apply


def _drop(kinds: tuple[str, ...], key: str) -> Callable[[dict, random.Random], bool]:
    def apply(design: dict, rng: random.Random) -> bool:
        node = _pick(design, rng, *kinds)
        if node is None:
            return False
        node.pop(key, None)
        return True
    return apply


def _top(change: Callable[[dict], Any]) -> Callable[[dict, random.Random], bool]:
    def apply(design: dict, _rng: random.Random) -> bool:
        change(design)
        return True
    return apply


def _steps_named(design: dict, kinds: tuple[str, ...]) -> list[str]:
    return [n["id"] for n in design["nodes"] if n.get("type") in kinds]


def _after(target_of: Callable[[dict, dict], str | None]) -> Callable[[dict, random.Random], bool]:
    """Add an edge from a step to the id `target_of(design, node)` chooses."""
    def apply(design: dict, rng: random.Random) -> bool:
        node = _pick(design, rng, *vocab.STEP_KINDS)
        if node is None:
            return False
        target = target_of(design, node)
        if target is None:
            return False
        node["after"] = list(node.get("after", [])) + [target]
        return True
    return apply


def _first_note(design: dict, _node: dict) -> str | None:
    notes = _steps_named(design, (vocab.NOTE,))
    return notes[0] if notes else None


def _make_cycle(design: dict, rng: random.Random) -> bool:
    """A step gets its own child as a parent: child -> parent -> child."""
    by_id = {n["id"]: n for n in design["nodes"]}
    pairs = [(n, by_id[p]) for n in design["nodes"] if n.get("type") in vocab.STEP_KINDS
             for p in n.get("after", []) if by_id[p].get("type") in vocab.STEP_KINDS]
    if not pairs:
        return False
    child, parent = rng.choice(pairs)
    parent["after"] = list(parent.get("after", [])) + [child["id"]]
    return True


def _drop_trigger(design: dict, _rng: random.Random) -> bool:
    trigger = next(n for n in design["nodes"] if n.get("type") == vocab.TRIGGER)
    design["nodes"].remove(trigger)
    for node in design["nodes"]:
        if "after" in node:
            node["after"] = [p for p in node["after"] if p != trigger["id"]]
    return bool(design["nodes"])


def _duplicate_id(design: dict, rng: random.Random) -> bool:
    steps = [n for n in design["nodes"] if n.get("type") in vocab.STEP_KINDS]
    if not steps:
        return False
    node = rng.choice(steps)
    clone = {"id": node["id"], "type": vocab.AGENT, "prompt": "again"}
    design["nodes"].append(clone)
    return len(design["nodes"]) <= vocab.MAX_NODES


def _append(node: dict) -> Callable[[dict, random.Random], bool]:
    def apply(design: dict, _rng: random.Random) -> bool:
        design["nodes"].append(copy.deepcopy(node))
        return len(design["nodes"]) <= vocab.MAX_NODES
    return apply


_ABSENT = object()
"""A field value meaning: remove the field."""


def _set_output(**fields: Any) -> Callable[[dict, random.Random], bool]:
    """Set (or remove, with _ABSENT) fields of the design's only output node."""
    def apply(design: dict, _rng: random.Random) -> bool:
        outputs = [n for n in design["nodes"] if n.get("type") == vocab.OUTPUT]
        if len(outputs) != 1:
            return False
        for key, value in fields.items():
            if value is _ABSENT:
                outputs[0].pop(key, None)
            else:
                outputs[0][key] = value
        return True
    return apply


def _condition_reading(
    kinds: tuple[str, ...] | None, literal: str = "1"
) -> Callable[[dict, random.Random], bool]:
    """Append a condition reading a node of `kinds` (None: a node that does not exist)."""
    def apply(design: dict, rng: random.Random) -> bool:
        if kinds is None:
            target = "no_such_node"
        else:
            named = [i for i in _steps_named(design, kinds) if NAME_RE.fullmatch(i)]
            if not named:
                return False
            target = rng.choice(named)
        design["nodes"].append({"id": "reads", "type": vocab.CONDITION,
                                "expression": f"out.{target}.key == {literal}"})
        return len(design["nodes"]) <= vocab.MAX_NODES
    return apply


AGENT, COND, APPROVAL, OUTPUT, NOTE, TRIGGER = (
    vocab.AGENT, vocab.CONDITION, vocab.APPROVAL, vocab.OUTPUT, vocab.NOTE, vocab.TRIGGER,
)
ANY = vocab.KINDS
STEPS = vocab.STEP_KINDS


def _expression_is(text: str) -> Callable[[dict, random.Random], bool]:
    return _set((COND,), "expression", text)


def _options_are(value: Any) -> Callable[[dict, random.Random], bool]:
    return _set((APPROVAL,), "options", value)


def _pad_to_too_many(design: dict) -> None:
    extra = vocab.MAX_NODES + 1 - len(design["nodes"])
    design["nodes"] += [{"id": f"pad{i}", "type": NOTE} for i in range(extra)]


MUTATIONS: tuple[Mutation, ...] = (
    # graph shape
    Mutation("nodes missing", "graph-shape", True, _top(lambda d: d.pop("nodes"))),
    Mutation("nodes not a list", "graph-shape", True, _top(lambda d: d.update(nodes={}))),
    Mutation("nodes empty", "graph-shape", True, _top(lambda d: d.update(nodes=[]))),
    Mutation("51 nodes", "graph-shape", True, _top(_pad_to_too_many)),
    Mutation("node not an object", "graph-shape", True,
             _top(lambda d: d["nodes"].append("agent"))),
    # identity
    Mutation("id missing", "identity", True, _drop(STEPS, "id")),
    Mutation("id a number", "identity", True, _set(ANY, "id", 7)),
    Mutation("id empty", "identity", True, _set(ANY, "id", "")),
    Mutation("id blank", "identity", True, _set(ANY, "id", "  \t")),
    Mutation("id duplicated", "identity", False, _duplicate_id),
    # one trigger
    Mutation("no trigger", "one-trigger", False, _drop_trigger),
    Mutation("second trigger", "one-trigger", False, _append({"id": "again", "type": TRIGGER})),
    # known kind
    Mutation("unknown type", "known-kind", True, _set(ANY, "type", "robot")),
    Mutation("type missing", "known-kind", True, _drop(ANY, "type")),
    Mutation("type a number", "known-kind", True, _set(ANY, "type", 3)),
    Mutation("type wrong case", "known-kind", True, _set(STEPS, "type", "Agent")),
    # required payloads
    Mutation("prompt missing", "required-payload", True, _drop((AGENT,), "prompt")),
    Mutation("prompt empty", "required-payload", True, _set((AGENT,), "prompt", "")),
    Mutation("prompt blank", "required-payload", True, _set((AGENT,), "prompt", " \n ")),
    Mutation("prompt a number", "required-payload", True, _set((AGENT,), "prompt", 5)),
    Mutation("expression missing", "required-payload", True, _drop((COND,), "expression")),
    Mutation("question missing", "required-payload", True, _drop((APPROVAL,), "question")),
    Mutation("question null", "required-payload", True, _set((APPROVAL,), "question", None)),
    # edges
    Mutation("after a string", "edges", True, _set(STEPS, "after", "start")),
    Mutation("after element a number", "edges", True, _set(STEPS, "after", [1])),
    Mutation("after element empty", "edges", True, _set(STEPS, "after", [""])),
    Mutation("after unknown id", "edges", False, _after(lambda d, n: "ghost")),
    Mutation("after itself", "edges", False, _after(lambda d, n: n["id"])),
    Mutation("after a note", "edges", False, _after(_first_note)),
    # acyclic
    Mutation("cycle", "acyclic", False, _make_cycle),
    # retries
    Mutation("retries 4", "retries", True, _set((AGENT,), "retries", 4)),
    Mutation("retries -1", "retries", True, _set((AGENT,), "retries", -1)),
    Mutation("retries 2.5", "retries", True, _set((AGENT,), "retries", 2.5)),
    Mutation("retries true", "retries", True, _set((AGENT,), "retries", True)),
    Mutation("retries a string", "retries", True, _set((AGENT,), "retries", "2")),
    Mutation("retries null", "retries", True, _set((AGENT,), "retries", None)),
    # deadline
    Mutation("timeout 0", "deadline", True, _set((AGENT, APPROVAL), "timeout_minutes", 0)),
    Mutation("timeout 4321", "deadline", True, _set((AGENT, APPROVAL), "timeout_minutes", 4321)),
    Mutation("timeout 1.5", "deadline", True, _set((AGENT, APPROVAL), "timeout_minutes", 1.5)),
    Mutation("timeout false", "deadline", True, _set((APPROVAL,), "timeout_minutes", False)),
    Mutation("on_timeout unknown", "deadline", True, _set((APPROVAL,), "on_timeout", "ignore")),
    Mutation("on_timeout wrong case", "deadline", True, _set((APPROVAL,), "on_timeout", "Reject")),
    # delivery
    Mutation("deliver unknown", "delivery", True, _set((OUTPUT,), "deliver", "email")),
    Mutation("channel without target", "delivery", True,
             _set_output(deliver="channel", target=_ABSENT)),
    Mutation("channel target without colon", "delivery", True,
             _set_output(deliver="channel", target="slack")),
    # note colour
    Mutation("color unknown", "note-color", True, _set((NOTE,), "color", "purple")),
    Mutation("color null", "note-color", True, _set((NOTE,), "color", None)),
    # field types
    Mutation("title a number", "field-type", True, _set(ANY, "title", 5)),
    Mutation("profile a list", "field-type", True, _set((AGENT,), "profile", [])),
    Mutation("model null", "field-type", True, _set((AGENT,), "model", None)),
    Mutation("text a number", "field-type", True, _set((NOTE,), "text", 1)),
    Mutation("options empty", "field-type", True, _options_are([])),
    Mutation("options repeated", "field-type", True, _options_are(["a", "a"])),
    Mutation("options element a number", "field-type", True, _options_are(["a", 2])),
    Mutation("options element blank", "field-type", True, _options_are([" "])),
    Mutation("options a string", "field-type", True, _options_are("approve")),
    Mutation("notification target a number", "field-type", True,
             _set_output(deliver="notification", target=5)),
    # conditions: grammar defects the schema's pattern catches ...
    Mutation("condition without operator", "condition", True,
             _expression_is("out.x.y")),
    Mutation("condition without out.", "condition", True, _expression_is("x.y == 1")),
    Mutation("condition single =", "condition", True,
             _expression_is("out.a.b = 1")),
    Mutation("condition single quotes", "condition", True,
             _expression_is("out.a.b == 'x'")),
    Mutation("condition True", "condition", True, _expression_is("out.a.b == True")),
    Mutation("condition trailing text", "condition", True,
             _expression_is("out.a.b == 1 2")),
    Mutation("condition without path", "condition", True, _expression_is("out.a == 1")),
    Mutation("condition too long", "condition", True,
             _expression_is("out.a.b == \"" + "x" * vocab.MAX_EXPRESSION_LENGTH + "\"")),
    # ... and what it cannot: which node is read, and number ranges
    Mutation("condition reads a missing node", "condition", False, _condition_reading(None)),
    Mutation("condition reads a note", "condition", False, _condition_reading((NOTE,))),
    Mutation("condition reads the trigger", "condition", False, _condition_reading((TRIGGER,))),
    Mutation("condition number out of range", "condition", False,
             _condition_reading(STEPS, literal="1e400")),
)


def base_design() -> dict[str, Any]:
    """A valid design with every kind, so every mutation applies to it."""
    return {
        "name": "every-kind",
        "nodes": [
            {"id": "start", "type": TRIGGER},
            {"id": "fetch", "type": AGENT, "prompt": "Fetch.", "after": ["start"], "retries": 1,
             "timeout_minutes": 10, "profile": "default", "model": "m"},
            {"id": "gate", "type": COND, "expression": "out.fetch.count > 0", "after": ["fetch"]},
            {"id": "ask", "type": APPROVAL, "question": "Go?", "options": ["go", "stop"],
             "timeout_minutes": 60, "on_timeout": "escalate", "after": ["gate"]},
            {"id": "send", "type": OUTPUT, "deliver": "channel", "target": "slack:#x",
             "after": ["ask"]},
            {"id": "memo", "type": NOTE, "text": "hi", "color": "blue"},
        ],
    }


def mutate(design: dict, mutation: Mutation, rng: random.Random) -> dict | None:
    """A mutated deep copy, or None when the mutation does not apply to `design`."""
    copied = copy.deepcopy(design)
    return copied if mutation.apply(copied, rng) else None
