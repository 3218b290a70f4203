"""The design vocabulary: kinds, fields, enums, ranges and limits, in one place.

The validator, the JSON Schema, completion and hover all read this module, so a
rule changes in exactly one spot.  Pure data: no I/O, no protocol types.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# --- limits ---------------------------------------------------------------

MAX_NODES = 50
"""A graph holds at most this many nodes (spec: graph shape)."""

MAX_EXPRESSION_LENGTH = 2000
"""A condition longer than this is a defect: keeps parsing bounded on hostile input."""

MAX_PATH_SEGMENTS = 32
"""At most this many `.key` segments after `out.<node>`."""

DESIGN_NAME_PATTERN = r"^[a-z0-9][a-z0-9_.-]{0,63}$"
RUN_ID_PATTERN = r"^[a-f0-9]{6,32}$"

# --- kinds ----------------------------------------------------------------

TRIGGER, AGENT, CONDITION, APPROVAL, OUTPUT, NOTE = (
    "trigger",
    "agent",
    "condition",
    "approval",
    "output",
    "note",
)
KINDS: tuple[str, ...] = (TRIGGER, AGENT, CONDITION, APPROVAL, OUTPUT, NOTE)
"""Every accepted value of a node's `type`, in the order menus show them."""

STEP_KINDS: tuple[str, ...] = (AGENT, CONDITION, APPROVAL, OUTPUT)
"""Kinds that become steps of a run plan (trigger and notes are dropped)."""

KIND_DOCS: dict[str, str] = {
    TRIGGER: "Where a run starts. Exactly one per design; it is not a step of the run.",
    AGENT: "Asks an agent to perform `prompt` with its parents' outputs as context. "
    "Retried up to `retries` times.",
    CONDITION: "Evaluates `expression` (`out.<node>.<path> <op> <literal>`). "
    "False skips this step and everything downstream of it.",
    APPROVAL: "Parks the run until someone answers `question` with one of `options`.",
    OUTPUT: "Collects its parents' outputs and optionally delivers them "
    "(`notification` or `channel`).",
    NOTE: "A sticky note on the canvas. Never runs and can never be in `after`.",
}

# --- enums ----------------------------------------------------------------

ON_TIMEOUT_VALUES: tuple[str, ...] = ("reject", "escalate")
DELIVER_VALUES: tuple[str, ...] = ("notification", "channel")
NOTE_COLORS: tuple[str, ...] = ("yellow", "blue", "green", "red", "")
DEFAULT_APPROVAL_OPTIONS: tuple[str, ...] = ("approve", "reject")
CONDITION_OPERATORS: tuple[str, ...] = ("==", "!=", "<=", ">=", "<", ">")
"""Longest first, so a scanner that tries them in order never splits `<=`."""

RUN_STATUSES: tuple[str, ...] = (
    "running",
    "awaiting_agent",
    "awaiting_approval",
    "completed",
    "failed",
    "cancelled",
)
FINISHED_STATUSES: tuple[str, ...] = ("completed", "failed", "cancelled")

# --- fields ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Field:
    """One field a node may carry, with everything a tool needs to explain it."""

    name: str
    type: str
    """'string', 'integer', 'string-list', 'id-list' or 'enum'."""
    doc: str
    required: bool = False
    """Required payload: the kind cannot run without it (a non-empty string)."""
    enum: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    default: Any = None
    example: Any = None
    """A placeholder value for snippets."""


COMMON_FIELDS: tuple[Field, ...] = (
    Field("id", "string", "Unique, non-empty id. `after` lists and conditions refer to it.",
          required=True, example="step"),
    Field("type", "enum", "The node's kind.", required=True, enum=KINDS),
    Field("after", "id-list", "Ids of the nodes this one runs after. Never itself, never a "
          "note; the graph must stay acyclic.", default=[], example=[]),
    Field("title", "string", "A human label shown on the canvas.", example="Title"),
)

RETRIES = Field("retries", "integer", "How many times a failed agent attempt is retried "
                "(a whole number, 0-3).", minimum=0, maximum=3, default=0, example=1)
TIMEOUT_MINUTES = Field("timeout_minutes", "integer", "Deadline in minutes (a whole number, "
                        "1-4320, i.e. up to 3 days).", minimum=1, maximum=4320, example=60)

KIND_FIELDS: dict[str, tuple[Field, ...]] = {
    TRIGGER: (),
    AGENT: (
        Field("prompt", "string", "What the agent is asked to do. Its parents' outputs are "
              "passed as context.", required=True, example="Describe the task"),
        RETRIES,
        TIMEOUT_MINUTES,
        Field("profile", "string", "Agent profile to launch with (optional).", example="default"),
        Field("model", "string", "Model override. Passed on only when the trust gate "
              "`plugins.entries.visual-workflow.llm.allow_model_override` is true in "
              "$HERMES_HOME/config.yaml; the provider comes from the host catalog.",
              example="model-name"),
    ),
    CONDITION: (
        Field("expression", "string", "`out.<node>.<path> <op> <literal>`; op is one of "
              "== != < <= > >=; literal is a JSON number, a double-quoted string, true, false "
              "or null. False skips this step and its whole downstream branch.",
              required=True, example="out.node.key == \"value\""),
    ),
    APPROVAL: (
        Field("question", "string", "What the approver is asked.", required=True,
              example="Approve?"),
        Field("options", "string-list", "The answers the approver may choose from. "
              "`reject` prunes: it skips the approval and everything after it; every other "
              "answer continues.",
              default=list(DEFAULT_APPROVAL_OPTIONS), example=list(DEFAULT_APPROVAL_OPTIONS)),
        TIMEOUT_MINUTES,
        Field("on_timeout", "enum", "What happens past `timeout_minutes`: `reject` answers "
              "reject; `escalate` sends one notification and keeps waiting.",
              enum=ON_TIMEOUT_VALUES, default="reject"),
    ),
    OUTPUT: (
        Field("deliver", "enum", "Where the collected outputs go: `notification` (the "
              "editor or the CLI's stderr) or `channel` (the user's delivery command).",
              enum=DELIVER_VALUES),
        Field("target", "string", "Channel target, `<platform>:<address>`; must contain `:`. "
              "Required when deliver is `channel`.", example="slack:#reviews"),
    ),
    NOTE: (
        Field("text", "string", "The note's text.", example="Note"),
        Field("color", "enum", "Tint: yellow, blue, green, red or empty.", enum=NOTE_COLORS,
              default=""),
    ),
}


def fields_for(kind: str) -> tuple[Field, ...]:
    """Every field a node of `kind` may carry: the common ones, then the kind's own."""
    return COMMON_FIELDS + KIND_FIELDS.get(kind, ())


def field_named(kind: str, name: str) -> Field | None:
    """The field `name` on a node of `kind`, or None when the kind has no such field."""
    for field in fields_for(kind):
        if field.name == name:
            return field
    return None


def required_payloads(kind: str) -> tuple[Field, ...]:
    """The payload fields a kind cannot run without (prompt, expression, question)."""
    return tuple(f for f in KIND_FIELDS.get(kind, ()) if f.required)


MAIN_FIELD: dict[str, str] = {
    TRIGGER: "title",
    AGENT: "prompt",
    CONDITION: "expression",
    APPROVAL: "question",
    OUTPUT: "deliver",
    NOTE: "text",
}
"""The field that says what a node of each kind does: the canvas shows it on the node
and edits it in its side form."""


ALL_FIELD_NAMES: frozenset[str] = frozenset(
    f.name for kind in KINDS for f in fields_for(kind)
)

# --- rules: the spec's rule table, named ----------------------------------
# Every defect and diagnostic carries one of these as its `code`.

RULES: dict[str, str] = {
    "graph-shape": "An object with a non-empty nodes list, at most 50 nodes",
    "identity": "Every node has a unique, non-empty string id",
    "one-trigger": "Exactly one trigger",
    "known-kind": "type is one of the accepted kinds",
    "required-payload": "prompt, expression, question where the kind cannot run without them",
    "edges": "after is a list of strings naming real nodes, never itself, never a note",
    "acyclic": "The after edges form no cycle",
    "retries": "An agent's retries is a whole number in 0-3",
    "deadline": "timeout_minutes is 1-4320; on_timeout is reject or escalate",
    "delivery": "deliver is notification or channel; a channel target contains ':'",
    "condition": "out.<node>.<path> <op> <literal> only",
    "note-color": "color is yellow, blue, green, red or empty",
    "field-type": "A known field holds the type its kind expects",
}

EDITOR_RULES: dict[str, str] = {
    "json-syntax": "The document is not valid JSON here",
    "unknown-field": "A field no kind defines (likely a typo)",
    "not-upstream": "A condition reads a node that does not run before it",
    "path-absent": "The newest run's output of that node has no such path",
    "duplicate-key": "A key appears twice in one object; only the last one counts",
    "no-reject": "An approval's options leave out reject: no answer stops its branch, and "
                 "its deadline answers reject, which is not one of them",
    "design-name": "A design name the design store and `hwf run` refuse (an error)",
}
