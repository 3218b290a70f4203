"""The chat tools of contract 6, in toolsets `visual_workflow` and
`visual_workflow_agent_steps` (the three a cron job needs): arguments in, one JSON string out.

Each tool checks its arguments first (a wrong one is `{"error": msg, "argument": name}`),
then calls the engine (`engine.Workflows`). Whatever goes wrong answers an error
object: never a traceback, and never a partial write (the stores validate before
they write, and every write is atomic).

A parked run's summary carries `instructions` for the chat model: perform the
agent step and call `workflow_design_respond`, or ask the user and call
`workflow_design_answer`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hwf_lsp.hermes.engine import MAX_RUNS_LISTED, Workflows
from hwf_lsp.hermes.prompts import instructions_for
from hwf_lsp.hermes.results import answer_json
from hwf_lsp.rules.names import check_design_name, check_run_id
from hwf_lsp.rules.run_facts import approval_options
from hwf_lsp.rules.validator import validate_designer_graph
from hwf_lsp.rules.vocabulary import FINISHED_STATUSES, KIND_FIELDS, KINDS, RUN_STATUSES
from hwf_lsp.workflow.locks import RunBusyError
from hwf_lsp.workflow.seams import AgentSeam

TOOLSET = "visual_workflow"
AGENT_STEPS_TOOLSET = "visual_workflow_agent_steps"
AGENT_STEPS_TOOLS = ("workflow_runs", "workflow_run_show", "workflow_design_respond")
"""What performing parked agent steps needs (read runs, respond), in a toolset of their own:
the cron job gets only these (cron_job.py). A chat gets both toolsets: Hermes enables a
plugin's toolsets by default."""
DEFAULT_RUNS_LIMIT = 20


def toolset_of(name: str) -> str:
    return AGENT_STEPS_TOOLSET if name in AGENT_STEPS_TOOLS else TOOLSET


class ArgumentError(ValueError):
    """A tool argument that is missing, of the wrong type or names nothing real."""

    def __init__(self, argument: str | None, message: str) -> None:
        super().__init__(message)
        self.argument = argument


# --- reading arguments ------------------------------------------------------------


def _reject_unknown(args: dict[str, Any], known: tuple[str, ...]) -> None:
    for key in args:
        if key not in known:
            raise ArgumentError(key, f"unknown argument {key!r}; this tool takes "
                                f"{', '.join(known) or 'no arguments'}")


def _text(args: dict[str, Any], name: str, *, required: bool = True) -> str | None:
    value = args.get(name)
    if value is None:
        if required:
            raise ArgumentError(name, f"missing argument {name!r}")
        return None
    if not isinstance(value, str) or not value:
        raise ArgumentError(name, f"{name!r} must be a non-empty string")
    return value


def _checked(name: str, value: str | None, check: Callable[[str], str]) -> str | None:
    if value is None:
        return None
    try:
        return check(value)
    except ValueError as exc:
        raise ArgumentError(name, str(exc)) from None


def _design_name(args: dict[str, Any], name: str = "name") -> str:
    return _checked(name, _text(args, name), check_design_name)  # type: ignore[return-value]


def _run_id(args: dict[str, Any], name: str = "run_id", *, required: bool = True) -> str | None:
    return _checked(name, _text(args, name, required=required), check_run_id)


def _design(args: dict[str, Any]) -> Any:
    """The design argument: a JSON object, or a string holding one (models send both)."""
    if "design" not in args:
        raise ArgumentError("design", "missing argument 'design'")
    value = args["design"]
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError) as exc:
            raise ArgumentError("design", f"'design' is a string but not JSON: {exc}") from None
    return value


def _limit(args: dict[str, Any]) -> int:
    value = args.get("limit", DEFAULT_RUNS_LIMIT)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_RUNS_LISTED:
        raise ArgumentError("limit", f"'limit' must be a whole number from 1 to {MAX_RUNS_LISTED}")
    return value


# --- what the tools answer --------------------------------------------------------


def summary_of(flows: Workflows, state: dict[str, Any], notices: list[str] | None = None,
             *, parked_hint: bool = True) -> dict[str, Any]:
    summary = flows.summary(state)
    if notices:
        summary["notices"] = list(notices)
    if flows.notifications:
        summary["notifications"] = list(flows.notifications)
    hint = instructions_for(state) if parked_hint else None
    if hint:
        summary["instructions"] = hint
    return summary


def _existing_run(flows: Workflows, run_id: str, argument: str = "run_id") -> dict[str, Any]:
    try:
        return flows.runs.load(run_id)
    except FileNotFoundError:
        raise ArgumentError(argument, f"no run {run_id} in {flows.runs.root}") from None
    except ValueError as exc:  # a bad entry: a looping link, a FIFO, a corrupt file
        raise ArgumentError(argument, str(exc)) from None


def _stored_design(flows: Workflows, name: str) -> Path:
    """The design's file; a bad entry (a looping link, a link out of the store) names `name`."""
    try:
        return flows.designs.path(name)
    except ValueError as exc:
        raise ArgumentError("name", str(exc)) from None


def validate(flows: Workflows, args: dict[str, Any]) -> dict[str, Any]:
    _reject_unknown(args, ("design",))
    defects = validate_designer_graph(_design(args))
    return {"valid": not defects, "defects": defects}


def save(flows: Workflows, args: dict[str, Any], text: str | None = None) -> dict[str, Any]:
    """`text`: the design's own text (the dashboard tab's draft), written as it is."""
    _reject_unknown(args, ("name", "design"))
    name, design = _design_name(args), _design(args)
    if not isinstance(design, dict):
        raise ArgumentError("design", "'design' must be a JSON object with name and nodes")
    if design.get("name") is not None and design.get("name") != name:
        raise ArgumentError("name", f"the design says its name is {design.get('name')!r}, "
                            f"not {name!r}; the two must agree")
    defects = validate_designer_graph(design)
    if defects:
        return {"error": f"design {name!r} has {len(defects)} defect"
                f"{'s' if len(defects) != 1 else ''}; it was not saved",
                "argument": "design", "defects": defects}
    return {"saved": True, "path": str(flows.designs.save(name, design, text))}


def list_designs(flows: Workflows, args: dict[str, Any]) -> dict[str, Any]:
    _reject_unknown(args, ())
    return {"designs": flows.list_designs()}


def get(flows: Workflows, args: dict[str, Any]) -> dict[str, Any]:
    _reject_unknown(args, ("name",))
    name = _design_name(args)
    try:
        return {"design": flows.designs.load(name)}
    except FileNotFoundError:
        raise ArgumentError("name", f"no design {name!r} in {flows.designs.root}") from None
    except ValueError as exc:  # a bad entry: a looping link, a FIFO, a corrupt file
        raise ArgumentError("name", str(exc)) from None


def run(flows: Workflows, args: dict[str, Any]) -> dict[str, Any]:
    _reject_unknown(args, ("name", "from_node", "base_run"))
    name = _design_name(args)
    from_node = _text(args, "from_node", required=False)
    base_run = _run_id(args, "base_run", required=False)
    if base_run is not None and from_node is None:
        raise ArgumentError("base_run", "'base_run' only makes sense with 'from_node'")
    if not _stored_design(flows, name).exists():
        raise ArgumentError("name", f"no design {name!r} in {flows.designs.root}; save it "
                            "first with workflow_design_save")
    if base_run is not None:
        _existing_run(flows, base_run, "base_run")
    if from_node is not None:
        nodes = flows.designs.load(name).get("nodes") or ()
        steps = [n.get("id") for n in nodes if isinstance(n, dict)]
        if from_node not in steps:
            raise ArgumentError("from_node", f"{from_node!r} is not a node of design {name!r}")
    state, notices = flows.run(name, from_node, base_run)
    return summary_of(flows, state, notices)


def respond(flows: Workflows, args: dict[str, Any]) -> dict[str, Any]:
    _reject_unknown(args, ("run_id", "output", "structured"))
    run_id = _run_id(args)
    if ("output" in args) == ("structured" in args):
        raise ArgumentError("output", "give exactly one of 'output' (text) or 'structured' "
                            "(a JSON value)")
    state = _existing_run(flows, run_id)
    if state.get("status") != "awaiting_agent":
        raise ArgumentError("run_id", f"run {run_id} is not waiting for an agent "
                            f"(status: {state.get('status')})")
    given = {key: args[key] for key in ("output", "structured") if key in args}
    return summary_of(flows, flows.runner().respond(run_id, **given))


def answer(flows: Workflows, args: dict[str, Any]) -> dict[str, Any]:
    _reject_unknown(args, ("run_id", "choice"))
    run_id = _run_id(args)
    choice = _text(args, "choice")
    state = _existing_run(flows, run_id)
    pending = state.get("pending") if isinstance(state.get("pending"), dict) else {}
    if state.get("status") != "awaiting_approval":
        raise ArgumentError("run_id", f"run {run_id} is not waiting for an approval "
                            f"(status: {state.get('status')})")
    options = approval_options(pending.get("options"))
    if choice not in options:
        raise ArgumentError("choice", f"{choice!r} is not an option of approval "
                            f"{pending.get('node')!r}: choose one of {', '.join(map(str, options))}")
    return summary_of(flows, flows.runner().answer(run_id, choice))


def runs(flows: Workflows, args: dict[str, Any]) -> dict[str, Any]:
    _reject_unknown(args, ("design", "status", "limit"))
    design = _checked("design", _text(args, "design", required=False), check_design_name)
    status = _text(args, "status", required=False)
    if status is not None and status not in RUN_STATUSES:
        raise ArgumentError("status", f"unknown status {status!r}: one of "
                            f"{', '.join(RUN_STATUSES)}")
    states, unreadable = flows.recent_with_unreadable(design, status, _limit(args))
    listed: dict[str, Any] = {"runs": [summary_of(flows, s, parked_hint=False) for s in states]}
    if unreadable:
        listed["unreadable"] = unreadable
    return listed


def show(flows: Workflows, args: dict[str, Any]) -> dict[str, Any]:
    _reject_unknown(args, ("run_id",))
    return {"run": _existing_run(flows, _run_id(args))}  # wrapped: see results.py


def cancel(flows: Workflows, args: dict[str, Any]) -> dict[str, Any]:
    _reject_unknown(args, ("run_id",))
    run_id = _run_id(args)
    before = _existing_run(flows, run_id).get("status")
    state = flows.runner().cancel(run_id)
    if before in FINISHED_STATUSES:
        notices = [f"run {run_id} had already finished ({before}); nothing to cancel"]
    elif state.get("status") != "cancelled":
        notices = [f"run {run_id} is busy: its runner stops before its next step"]
    else:
        notices = []
    return summary_of(flows, state, notices, parked_hint=False)


# --- schemas ----------------------------------------------------------------------


def _design_doc() -> str:
    kinds = "; ".join(
        f"{kind}: " + (", ".join(f.name + (" (required)" if f.required else "")
                                 for f in KIND_FIELDS.get(kind, ())) or "no fields")
        for kind in KINDS)
    return ("A Hermes Workflow design: {\"name\": \"<design-name>\", \"nodes\": [...]}. Every "
            "node has \"id\", \"type\" (one of " + ", ".join(KINDS) + "), \"after\" (ids of "
            "the nodes it runs after) and an optional \"title\"; exactly one trigger. Fields "
            f"by type: {kinds}. A condition's expression is out.<node>.<path> <op> <literal>.")


def _schema(name: str, description: str, properties: dict[str, Any],
            required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"name": name, "description": description, "parameters": {
        "type": "object", "properties": properties, "required": list(required)}}


_NAME = {"type": "string", "description": "design name, ^[a-z0-9][a-z0-9_.-]{0,63}$"}
_RUN_ID = {"type": "string", "description": "run id (hex), from a run summary"}
_DESIGN = {"type": "object", "description": _design_doc()}


TOOLS: tuple[tuple[dict[str, Any], Callable[[Workflows, dict[str, Any]], dict[str, Any]]], ...] = (
    (_schema("workflow_design_validate", "Check a workflow design against the rulebook "
             "(the canvas's verdict). Answers {valid, defects}; each defect names node, field, "
             "msg.", {"design": _DESIGN}, ("design",)), validate),
    (_schema("workflow_design_save", "Save a design under a name, after validating it. Answers "
             "{saved, path}, or an error with the defects (nothing is written).",
             {"name": _NAME, "design": _DESIGN}, ("name", "design")), save),
    (_schema("workflow_design_list", "List the saved designs: {designs: [{name, nodes, "
             "updated_at}]}.", {}), list_designs),
    (_schema("workflow_design_get", "Get a saved design: {design}.", {"name": _NAME},
             ("name",)), get),
    (_schema("workflow_design_run", "Start a run of a saved design; with from_node, re-run "
             "that node and everything downstream, reusing upstream outputs of a base run. "
             "Answers the run summary; a parked run's summary says what to do next.",
             {"name": _NAME,
              "from_node": {"type": "string", "description": "node id to run from"},
              "base_run": {"type": "string", "description": "with from_node: the run whose "
                           "upstream outputs are reused (default: the newest suitable one)"}},
             ("name",)), run),
    (_schema("workflow_design_respond", "Give a run's parked agent step its result (you "
             "performed the step's prompt), then the run goes on. Exactly one of output "
             "(text) or structured (JSON value). Answers the run summary.",
             {"run_id": _RUN_ID,
              "output": {"type": "string", "description": "the step's result as text"},
              "structured": {"description": "the step's result as a JSON value"}},
             ("run_id",)), respond),
    (_schema("workflow_design_answer", "Answer a run parked at an approval with the choice "
             "the user made (one of its options), then the run goes on. Answers the run "
             "summary.", {"run_id": _RUN_ID, "choice": {"type": "string",
                                                         "description": "one of the options"}},
             ("run_id", "choice")), answer),
    (_schema("workflow_runs", "List runs, newest first: {runs: [run summary]}.",
             {"design": _NAME | {"description": "only runs of this design"},
              "status": {"type": "string", "enum": list(RUN_STATUSES)},
              "limit": {"type": "integer", "minimum": 1, "maximum": MAX_RUNS_LISTED,
                        "description": f"at most this many (default {DEFAULT_RUNS_LIMIT})"}}),
     runs),
    (_schema("workflow_run_show", "The full state of one run: {run: state} (outputs, log, "
             "what it waits for in run.pending).", {"run_id": _RUN_ID}, ("run_id",)), show),
    (_schema("workflow_run_cancel", "Cancel a run. Answers the run summary.",
             {"run_id": _RUN_ID}, ("run_id",)), cancel),
)
TOOL_NAMES: tuple[str, ...] = tuple(schema["name"] for schema, _ in TOOLS)


# --- calling a tool ----------------------------------------------------------------


def error_result(exc: BaseException) -> dict[str, Any]:
    """The error object for anything a tool raised: message, and the argument if known."""
    if isinstance(exc, ArgumentError):
        out: dict[str, Any] = {"error": str(exc)}
        if exc.argument is not None:
            out["argument"] = exc.argument
        return out
    if isinstance(exc, RunBusyError):
        return {"error": f"{exc}; try again when it is done"}
    if isinstance(exc, (ValueError, FileNotFoundError)):
        return {"error": str(exc)}
    if isinstance(exc, OSError):
        return {"error": f"{exc.strerror or exc}: {exc.filename or ''}".rstrip(": ")}
    return {"error": f"internal error: {type(exc).__name__}: {exc}"}


def call_tool(fn: Callable[[Workflows, dict[str, Any]], dict[str, Any]], args: Any,
              home: Path, seam: AgentSeam | None) -> str:
    """One tool call: a JSON string, whatever happens."""
    try:
        if args is None:
            args = {}
        if not isinstance(args, dict):
            raise ArgumentError(None, "arguments must be a JSON object")
        return answer_json(fn(Workflows(home, seam), args))
    except Exception as exc:  # noqa: BLE001 - a tool answers an error object, never a traceback
        return answer_json(error_result(exc))
