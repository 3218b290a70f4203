"""The dashboard tab's routes: designs (read, edit, validate, save, run), runs (read,
answer, respond, cancel).

Hermes' web server (`hermes dashboard`) mounts `router` under
`/api/plugins/visual-workflow/` (it imports the `plugin_api.py` its manifest names, in
`plugins/visual-workflow/dashboard/`, which loads this module) and guards every route
with its session token.  The routes are the chat tools' functions (`tools.py`) on the
stores of the home Hermes resolves, so the tab, chat, cron, `hwf` and the editor see
the same runs, and the store re-validates what is saved.  The graph is the editor's
(`analysis/graph_view.py`) on the stored file's text, or on the tab's draft: an edit is
the canvas's edit request computed by the editor's edit code (`analysis/edit_request.py`
over `design_edits.py`) on the draft text the tab sends, answered with the new text, its
graph and the validator's defects; nothing is written until the tab saves.  The graph
and the first edit carry the stored file's `revision` (`design_revision.py`); a save
sent with it as `base` is refused (409) when another writer changed the file since.
Requests are read by `route_input.py` (JSON only, capped bodies, safe numbers).  Paths
and answers: docs/hermes.md, "Dashboard tab".

Agent steps of a run started or advanced here are performed through the host's
PluginLlm facade (`seams.host_llm_seam`): the web server hands the routes no ctx, and
PluginLlm needs no parent session.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.requests import ClientDisconnect

from hwf_lsp.analysis.design_edits import DesignEditError
from hwf_lsp.analysis.edit_request import EditRequestError, edit_text
from hwf_lsp.analysis.expression_completion import (
    ExpressionCompletionError,
    complete_expression,
)
from hwf_lsp.analysis.findings import check_document
from hwf_lsp.analysis.graph_view import graph_answer, lsp_ranges
from hwf_lsp.analysis.newest_run import RunInfo
from hwf_lsp.hermes import tools
from hwf_lsp.hermes.design_revision import revision_of, stored_revision, written_revision
from hwf_lsp.hermes.engine import Workflows
from hwf_lsp.hermes.home import current_home
from hwf_lsp.hermes.host_seams import host_llm_seam
from hwf_lsp.hermes.route_input import (
    BAD_REQUEST,
    CONFLICT,
    NOT_FOUND,
    UNREADABLE,
    RouteRefusal,
    query_number,
    read_json_body,
    refuse_lone_surrogates,
)
from hwf_lsp.jsontext.jsontree import parse
from hwf_lsp.jsontext.positions import LineIndex
from hwf_lsp.rules.names import check_design_name, check_run_id
from hwf_lsp.workflow.locks import RunBusyError
from hwf_lsp.workflow.run_index import Stamp, dir_stamp, stamp_settled
from hwf_lsp.workflow.stores import read_text_file

router = APIRouter()

FAILED = 500
Work = Callable[[Workflows], dict[str, Any]]


def _answer(work: Work, *, performs_agents: bool = False) -> JSONResponse:
    """One route's work on this call's stores: its JSON, or `{error, argument?}` with a 4xx
    (a 500 only for a bug).  A route that advances a run gets the PluginLlm seam."""
    try:
        flows = Workflows(current_home(), host_llm_seam() if performs_agents else None)
        return JSONResponse(work(flows))
    except RouteRefusal as exc:
        return JSONResponse(exc.body(), status_code=exc.status)
    except tools.ArgumentError as exc:
        return JSONResponse(tools.error_result(exc), status_code=BAD_REQUEST)
    except RunBusyError as exc:
        return JSONResponse(tools.error_result(exc), status_code=CONFLICT)
    except ValueError as exc:  # a store entry that cannot be read (a looping link, a FIFO)
        return JSONResponse(tools.error_result(exc), status_code=UNREADABLE)
    except Exception as exc:  # noqa: BLE001 - every failure is an answer
        return JSONResponse(tools.error_result(exc), status_code=FAILED)


async def _with_body(request: Request, work: Callable[[Workflows, dict[str, Any]],
                                                     dict[str, Any]],
                     *, performs_agents: bool = True) -> JSONResponse:
    """A POST/PUT: its JSON body read safely, then `work` on a worker thread (a run
    advances until it parks or ends, its agent steps through PluginLlm)."""
    try:
        body = await read_json_body(request)
    except RouteRefusal as exc:
        return JSONResponse(exc.body(), status_code=exc.status)
    except ClientDisconnect:  # gone mid-body: nothing to do, no one to answer, no traceback
        return JSONResponse({"error": "the client went away before its body was read"},
                            status_code=BAD_REQUEST)
    return await asyncio.to_thread(_answer, lambda flows: work(flows, body),
                                   performs_agents=performs_agents)


def _checked(check: Callable[[str], str], value: str, argument: str) -> str:
    try:
        return check(value)
    except ValueError as exc:
        raise RouteRefusal(BAD_REQUEST, str(exc), argument) from None


def _existing_run(flows: Workflows, run_id: str) -> dict[str, Any]:
    run_id = _checked(check_run_id, run_id, "run_id")
    try:
        return flows.runs.load(run_id)
    except FileNotFoundError:
        raise RouteRefusal(NOT_FOUND, f"no run {run_id} in {flows.runs.root}", "run_id") from None


def _existing_design(flows: Workflows, name: str) -> str:
    name = _checked(check_design_name, name, "name")
    if not flows.designs.path(name).exists():
        raise RouteRefusal(NOT_FOUND, f"no design {name!r} in {flows.designs.root}", "name")
    return name


def _for_the_tab(summary: dict[str, Any]) -> dict[str, Any]:
    summary.pop("instructions", None)  # they are for a chat model
    return summary


# --- designs ----------------------------------------------------------------------------


@router.get("/designs")
def list_designs() -> JSONResponse:
    return _answer(lambda flows: tools.list_designs(flows, {}))


@router.get("/designs/{name}")
def get_design(name: str) -> JSONResponse:
    return _answer(lambda flows: tools.get(flows, {"name": _existing_design(flows, name)}))


def _stored_text(flows: Workflows, name: str) -> str:
    path = flows.designs.path(_existing_design(flows, name))
    try:
        return read_text_file(path)
    except FileNotFoundError:
        raise RouteRefusal(NOT_FOUND, f"no design {name!r} in {flows.designs.root}",
                           "name") from None
    except ValueError as exc:
        raise RouteRefusal(UNREADABLE, f"{path} {exc}", "name") from None


def _graph(flows: Workflows, name: str, text: str) -> dict[str, Any]:
    doc = parse(text)
    return graph_answer(flows.designs.path(name).as_uri(), None, doc, check_document(doc),
                        lsp_ranges(LineIndex(text), "utf-16"))


@router.get("/designs/{name}/graph")
def design_graph(name: str) -> JSONResponse:
    """The stored design's graph, `text` (what the tab's edits start from) and `revision`
    (the `base` of a later save)."""
    def work(flows: Workflows) -> dict[str, Any]:
        text = _stored_text(flows, name)
        return {**_graph(flows, name, text), "text": text, "revision": revision_of(text)}

    return _answer(work)


def _validated(flows: Workflows, text: str) -> dict[str, Any]:
    """The shared validator's verdict (`/validate`'s answer) on an edited text: an edit is
    made only on valid JSON and keeps it valid."""
    return tools.validate(flows, {"design": json.loads(text)})


@router.post("/designs/{name}/edit")
async def edit_design(name: str, request: Request) -> JSONResponse:
    """`{text?, edit, ...}` → `{text, id, graph, valid, defects}`: one canvas edit of the
    draft `text`, else of the stored file, whose revision the answer's `base` then is
    (the draft starts from the copy stored now); nothing is written."""
    def work(flows: Workflows, body: dict[str, Any]) -> dict[str, Any]:
        checked = _checked(check_design_name, name, "name")
        refuse_lone_surrogates(body)  # the answer holds them: it must be valid UTF-8
        text = body.get("text")
        base: dict[str, str] = {}
        if text is None:
            text = _stored_text(flows, checked)
            base["base"] = revision_of(text)
        elif not isinstance(text, str):
            raise RouteRefusal(BAD_REQUEST, "'text' must be the design's text (a string)",
                               "text")
        try:
            edited = edit_text(text, body, known=("text",))
        except EditRequestError as exc:
            raise RouteRefusal(BAD_REQUEST, str(exc), exc.argument) from None
        except DesignEditError as exc:
            raise RouteRefusal(BAD_REQUEST, str(exc), "edit") from None
        return {"text": edited.text, "id": edited.id,
                "graph": _graph(flows, checked, edited.text), **_validated(flows, edited.text),
                **base}

    return await _with_body(request, work, performs_agents=False)


@router.post("/designs/{name}/complete")
async def complete_design_expression(name: str, request: Request) -> JSONResponse:
    """`{text?, id, expression, offset}` → `{items}`: the inspector's completion of node
    `id`'s expression in the draft `text` (else the stored file), with the newest run of
    the design: what `hwf.completeExpression` answers in the editor, by the same code."""
    def work(flows: Workflows, body: dict[str, Any]) -> dict[str, Any]:
        checked = _checked(check_design_name, name, "name")
        refuse_lone_surrogates(body)
        text = body.get("text")
        if text is None:
            text = _stored_text(flows, checked)
        for key, kind in (("text", str), ("id", str), ("expression", str), ("offset", int)):
            value = text if key == "text" else body.get(key)
            if not isinstance(value, kind) or isinstance(value, bool):
                raise RouteRefusal(BAD_REQUEST, f"{key!r} must be "
                                   f"{'a string' if kind is str else 'a whole number'}", key)
        newest, _unreadable = flows.recent_with_unreadable(design=checked, limit=1)
        run = RunInfo.from_state(newest[0], "") if newest else None
        try:
            return complete_expression(parse(text), body["id"], body["expression"],
                                       body["offset"], run)
        except ExpressionCompletionError as exc:
            raise RouteRefusal(BAD_REQUEST, str(exc), "offset") from None

    return await _with_body(request, work, performs_agents=False)


@router.post("/validate")
async def validate(request: Request) -> JSONResponse:
    return await _with_body(request, tools.validate, performs_agents=False)


class _Defects(RouteRefusal):
    """A design the store refuses: 400 with its defects, nothing written."""

    def __init__(self, refused: dict[str, Any]) -> None:
        super().__init__(BAD_REQUEST, refused["error"], refused.get("argument"))
        self.defects = refused.get("defects", [])

    def body(self) -> dict[str, Any]:
        return {**super().body(), "defects": self.defects}


class _Changed(RouteRefusal):
    """A save whose `base` is not the stored revision any more: 409, nothing written; the
    answer's `revision` is the stored one (null: deleted), so the tab can overwrite that
    copy on purpose, and only that one."""

    def __init__(self, name: str, stored: str | None, text: str | None = None) -> None:
        what = "was deleted" if stored is None else "was changed by another writer (chat, " \
            "cron, hwf, an editor or another tab)"
        super().__init__(CONFLICT, f"design {name!r} {what} since this copy was read; "
                         "not saved", "base")
        self.stored = stored
        self.text = text

    def body(self) -> dict[str, Any]:
        return {**super().body(), "revision": self.stored, "text": self.text}


def _readable_text(path: Any) -> str | None:
    """The stored file's text for a conflict's answer; None when it is gone or unreadable."""
    try:
        return read_text_file(path)
    except (OSError, ValueError):
        return None


_SAVING = threading.Lock()
"""Two saves through this server (two tabs) compare and write one at a time, so both
cannot pass the check on the same base. Other processes take no lock: against them the
window is the time between this read and the store's rename."""


def _draft_design(body: dict[str, Any]) -> str | None:
    """A save's `text` (the tab's draft, edited in place), put in `body` as its `design`;
    None when the save sends a `design` instead."""
    text = body.pop("text", None)
    if text is None:
        return None
    if not isinstance(text, str):
        raise RouteRefusal(BAD_REQUEST, "'text' must be the design's text (a string)", "text")
    if "design" in body:
        raise RouteRefusal(BAD_REQUEST, "send the design's 'text' or its 'design', not both",
                           "text")
    refuse_lone_surrogates({"text": text})
    try:
        body["design"] = json.loads(text)
    except ValueError as exc:
        where = f" at line {exc.lineno}, column {exc.colno}" if isinstance(
            exc, json.JSONDecodeError) else ""
        raise RouteRefusal(BAD_REQUEST, f"the design's text is not valid JSON{where}; "
                           "not saved", "text") from None
    return text


@router.put("/designs/{name}")
async def save_design(name: str, request: Request) -> JSONResponse:
    """`{text | design, base?}` → `{saved, path, revision}`: `text` (the tab's draft) is
    written as it is, so the file changes by the user's edits only; with `base` (a
    revision the graph or an edit gave) a 409 when the stored file is no longer that
    revision, answering the stored copy's `revision` and `text` (the tab says what
    changed)."""
    def work(flows: Workflows, body: dict[str, Any]) -> dict[str, Any]:
        checked = _checked(check_design_name, name, "name")
        base = body.pop("base", None)
        if base is not None and not isinstance(base, str):
            raise RouteRefusal(BAD_REQUEST, "'base' must be the revision the design was "
                               "read at (a string), or left out", "base")
        text = _draft_design(body)
        with _SAVING:
            if base is not None:
                path = flows.designs.path(checked)
                stored = stored_revision(path)
                if stored != base:
                    raise _Changed(checked, stored, _readable_text(path))
            answer = tools.save(flows, {**body, "name": checked}, text)
        if answer.get("error"):
            raise _Defects(answer)
        return {**answer, "revision": written_revision(checked, body["design"], text)}

    return await _with_body(request, work, performs_agents=False)


@router.post("/designs/{name}/runs")
async def start_run(name: str, request: Request) -> JSONResponse:
    def work(flows: Workflows, body: dict[str, Any]) -> dict[str, Any]:
        return _for_the_tab(tools.run(flows, {**body, "name": _existing_design(flows, name)}))

    return await _with_body(request, work)


# --- runs -------------------------------------------------------------------------------


def _stamp_text(stamp: Stamp | None) -> str | None:
    """The runs directory's stamp as the tab holds it; None while it may not move on the
    next write yet (a write in the same clock tick keeps the mtime)."""
    return f"{stamp[0]}-{stamp[1]}" if stamp is not None and stamp_settled(stamp) else None


@router.get("/runs")
def list_runs(design: str | None = None, status: str | None = None,
              limit: str | None = None, since: str | None = None) -> JSONResponse:
    """The runs; with `since` (the `stamp` of an earlier answer) `{unchanged: true}` when
    no run was written since, from one stat of the runs directory (the tab's live poll)."""
    args: dict[str, Any] = {key: value for key, value in (
        ("design", design), ("status", status), ("limit", query_number(limit)))
        if value is not None}

    def work(flows: Workflows) -> dict[str, Any]:
        stamp = _stamp_text(dir_stamp(flows.runs.root))  # before the listing: never newer
        if since is not None and stamp == since:
            return {"unchanged": True, "stamp": stamp}
        return {**tools.runs(flows, args), "stamp": stamp}

    return _answer(work)


@router.get("/runs/{run_id}")
def show_run(run_id: str) -> JSONResponse:
    return _answer(lambda flows: tools.summary_of(flows, _existing_run(flows, run_id),
                                                  parked_hint=False))


def _on_run(run_id: str, tool: Callable[[Workflows, dict[str, Any]], dict[str, Any]]
            ) -> Callable[[Workflows, dict[str, Any]], dict[str, Any]]:
    def work(flows: Workflows, body: dict[str, Any]) -> dict[str, Any]:
        _existing_run(flows, run_id)
        body.pop("run_id", None)
        return _for_the_tab(tool(flows, {"run_id": run_id, **body}))

    return work


@router.post("/runs/{run_id}/answer")
async def answer(run_id: str, request: Request) -> JSONResponse:
    return await _with_body(request, _on_run(run_id, tools.answer))


@router.post("/runs/{run_id}/respond")
async def respond(run_id: str, request: Request) -> JSONResponse:
    return await _with_body(request, _on_run(run_id, tools.respond))


@router.post("/runs/{run_id}/cancel")
async def cancel(run_id: str, request: Request) -> JSONResponse:
    return await _with_body(request, _on_run(run_id, tools.cancel))
