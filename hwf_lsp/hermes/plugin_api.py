"""The dashboard tab's routes: designs, one design's graph, runs, answer and respond.

Hermes' web server (`hermes dashboard`) mounts `router` under
`/api/plugins/visual-workflow/` (it imports the `plugin_api.py` its manifest names, in
`plugins/visual-workflow/dashboard/`, which loads this module) and guards every route
with its session token.  The routes are the chat tools' functions (`tools.py`) on the
stores of the home Hermes resolves, so the tab, chat, cron, `hwf` and the editor see
the same runs.  Read-only, except answering an approval and responding to an agent
step.  The graph is the editor's (`analysis/graph_view.py`) on the stored file's text.
Paths and answers: docs/hermes.md, "Dashboard tab".

The dashboard has no agent seam: an agent step reached after an answer parks at
`awaiting_agent`, and the tab offers Respond for it.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from hwf_lsp.analysis.findings import check_document
from hwf_lsp.analysis.graph_view import graph_answer, lsp_ranges
from hwf_lsp.hermes import current_home, tools
from hwf_lsp.hermes.engine import Workflows
from hwf_lsp.jsontext.jsontree import parse
from hwf_lsp.jsontext.positions import LineIndex
from hwf_lsp.workflow.locks import RunBusyError
from hwf_lsp.workflow.names import check_design_name, check_run_id
from hwf_lsp.workflow.stores import read_text_file

router = APIRouter()

BAD_REQUEST, NOT_FOUND, CONFLICT, FAILED = 400, 404, 409, 500


class _Refusal(Exception):
    def __init__(self, status: int, message: str, argument: str | None = None) -> None:
        super().__init__(message)
        self.status, self.argument = status, argument


def _flows() -> Workflows:
    return Workflows(current_home())  # no seam: agent steps park for the tab's Respond


def _answer(work: Callable[[Workflows], dict[str, Any]]) -> JSONResponse:
    """One route's work on this call's stores: its JSON, or `{error, argument?}`."""
    try:
        return JSONResponse(work(_flows()))
    except _Refusal as exc:
        body: dict[str, Any] = {"error": str(exc)}
        if exc.argument is not None:
            body["argument"] = exc.argument
        return JSONResponse(body, status_code=exc.status)
    except Exception as exc:  # noqa: BLE001 - every failure is an answer
        status = (BAD_REQUEST if isinstance(exc, tools.ArgumentError)
                  else CONFLICT if isinstance(exc, RunBusyError) else FAILED)
        return JSONResponse(tools.error_result(exc), status_code=status)


def _checked(check: Callable[[str], str], value: str, argument: str) -> str:
    try:
        return check(value)
    except ValueError as exc:
        raise _Refusal(BAD_REQUEST, str(exc), argument) from None


def _existing_run(flows: Workflows, run_id: str) -> dict[str, Any]:
    run_id = _checked(check_run_id, run_id, "run_id")
    try:
        return flows.show(run_id)
    except FileNotFoundError:
        raise _Refusal(NOT_FOUND, f"no run {run_id} in {flows.runs.root}", "run_id") from None


async def _body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    try:
        body = json.loads(raw) if raw.strip() else {}
    except (ValueError, RecursionError) as exc:
        raise _Refusal(BAD_REQUEST, f"the body is not JSON: {exc}") from None
    if not isinstance(body, dict):
        raise _Refusal(BAD_REQUEST, "the body must be a JSON object")
    return body


# --- designs ----------------------------------------------------------------------------


@router.get("/designs")
def list_designs() -> JSONResponse:
    return _answer(lambda flows: tools.list_designs(flows, {}))


@router.get("/designs/{name}/graph")
def design_graph(name: str) -> JSONResponse:
    def work(flows: Workflows) -> dict[str, Any]:
        path = flows.designs.path(_checked(check_design_name, name, "name"))
        try:
            text = read_text_file(path)
        except FileNotFoundError:
            raise _Refusal(NOT_FOUND, f"no design {name!r} in {flows.designs.root}",
                           "name") from None
        except ValueError as exc:
            raise _Refusal(BAD_REQUEST, f"{path} {exc}", "name") from None
        doc = parse(text)
        return graph_answer(path.as_uri(), None, doc, check_document(doc),
                            lsp_ranges(LineIndex(text), "utf-16"))

    return _answer(work)


# --- runs -------------------------------------------------------------------------------


@router.get("/runs")
def list_runs(design: str | None = None, status: str | None = None,
              limit: str | None = None) -> JSONResponse:
    args: dict[str, Any] = {key: value for key, value in (("design", design),
                                                          ("status", status),
                                                          ("limit", limit)) if value is not None}
    if isinstance(limit, str) and limit.isdigit():
        args["limit"] = int(limit)  # else the tool says what a limit must be
    return _answer(lambda flows: tools.runs(flows, args))


@router.get("/runs/{run_id}")
def show_run(run_id: str) -> JSONResponse:
    return _answer(lambda flows: tools.summary_of(flows, _existing_run(flows, run_id),
                                                  parked_hint=False))


async def _advance(request: Request, run_id: str,
                   tool: Callable[[Workflows, dict[str, Any]], dict[str, Any]]) -> JSONResponse:
    """answer/respond: the tool on the body's arguments, on a worker thread (the run
    advances until it parks or ends)."""
    try:
        body = await _body(request)
    except _Refusal as exc:
        return JSONResponse({"error": str(exc)}, status_code=exc.status)
    body.pop("run_id", None)

    def work(flows: Workflows) -> dict[str, Any]:
        _existing_run(flows, run_id)
        summary = tool(flows, {"run_id": run_id, **body})
        summary.pop("instructions", None)  # they are for a chat model
        return summary

    return await asyncio.to_thread(_answer, work)


@router.post("/runs/{run_id}/answer")
async def answer(run_id: str, request: Request) -> JSONResponse:
    return await _advance(request, run_id, tools.answer)


@router.post("/runs/{run_id}/respond")
async def respond(run_id: str, request: Request) -> JSONResponse:
    return await _advance(request, run_id, tools.respond)
