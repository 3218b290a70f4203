"""The canvas's commands: `hwf.graph` (the design as a graph) and `hwf.edit.*` (its edits).

The graph is computed from the server's current text of the document, unsaved edits
included, with the findings the diagnostics use (`Analysis.findings`): the canvas and
the squiggles never disagree.  Broken JSON answers the last good graph of the document,
marked stale.  An edit is computed on that same text (analysis/design_edits.py) and
sent to the editor with `workspace/applyEdit` as a versioned TextDocumentEdit: the
editor applies it (its undo undoes it) and the server hears of it by didChange, as of
any keystroke.  Arguments and answers: docs/commands.md, "Canvas".
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from hwf_lsp.analysis import design_edits
from hwf_lsp.analysis.check import check_document
from hwf_lsp.analysis.graph_view import graph_answer, lsp_ranges
from hwf_lsp.analysis.jsontree import parse
from hwf_lsp.analysis.positions import LineIndex
from hwf_lsp.server import convert
from hwf_lsp.server.documents import uri_to_path
from hwf_lsp.server.features.commands import (
    CommandError,
    _arg,
    _message_of,
    _string,
    bad_arguments,
)
from hwf_lsp.server.guard import RequestRefused
from hwf_lsp.server.protocol import WireResult

if TYPE_CHECKING:
    from hwf_lsp.server.documents import Analysis
    from hwf_lsp.server.server import HwfServer

log = logging.getLogger(__name__)

GRAPH = "hwf.graph"
CONNECT = "hwf.edit.connect"
DISCONNECT = "hwf.edit.disconnect"
ADD_NODE = "hwf.edit.addNode"
DELETE_NODE = "hwf.edit.deleteNode"
RENAME_NODE = "hwf.edit.renameNode"
SET_FIELD = "hwf.edit.setField"
CANVAS_COMMANDS = (GRAPH, CONNECT, DISCONNECT, ADD_NODE, DELETE_NODE, RENAME_NODE, SET_FIELD)

LAST_GOOD_KEPT = 64
"""Documents whose last good graph is kept (for the stale answer on broken JSON)."""


class Canvas:
    """The handlers, bound to one server; the last good graph of each document."""

    def __init__(self, server: HwfServer) -> None:
        self.server = server
        self.last_good: OrderedDict[str, dict[str, Any]] = OrderedDict()

    # --- the graph ------------------------------------------------------------------

    async def graph(self, *args: Any) -> WireResult:
        usage = "[uri]"
        uri = self._design_uri(args, usage)
        analysis = self.server.analysis(uri)
        if analysis is not None:
            version, doc, findings, lines = (analysis.version, analysis.doc, analysis.findings,
                                             analysis.lines)
        else:
            version, doc, findings, lines = None, *_read_closed(uri)
        answer = graph_answer(uri, version, doc, findings,
                              lsp_ranges(lines, self.server.encoding),
                              self.last_good.get(uri))
        if not answer["stale"]:
            self.last_good[uri] = answer
            self.last_good.move_to_end(uri)
            while len(self.last_good) > LAST_GOOD_KEPT:
                self.last_good.popitem(last=False)
        return WireResult(answer)

    def _design_uri(self, args: tuple[Any, ...], usage: str) -> str:
        uri = _string(_arg(args, 0, usage, "uri"), usage, "uri")
        if not self.server.is_design(uri):
            raise bad_arguments(usage, f"{uri} is not a design (see the setting hwf.designs.globs)")
        return uri

    # --- the edits ------------------------------------------------------------------

    def _open_design(self, args: tuple[Any, ...], usage: str) -> tuple[str, Analysis]:
        uri = self._design_uri(args, usage)
        analysis = self.server.analysis(uri)
        if analysis is None:
            raise bad_arguments(usage, f"{uri} is not open in the editor: the canvas edits "
                                "the open document")
        return uri, analysis

    async def connect(self, *args: Any) -> dict[str, Any]:
        usage = "[uri, from_id, to_id]"
        uri, analysis = self._open_design(args, usage)
        source, target = (_string(_arg(args, i, usage, what), usage, what)
                          for i, what in ((1, "from_id"), (2, "to_id")))
        return await self._apply(uri, analysis, usage, f"Connect {source} to {target}",
                                 design_edits.connect, source, target)

    async def disconnect(self, *args: Any) -> dict[str, Any]:
        usage = "[uri, from_id, to_id]"
        uri, analysis = self._open_design(args, usage)
        source, target = (_string(_arg(args, i, usage, what), usage, what)
                          for i, what in ((1, "from_id"), (2, "to_id")))
        return await self._apply(uri, analysis, usage, f"Disconnect {source} from {target}",
                                 design_edits.disconnect, source, target)

    async def add_node(self, *args: Any) -> dict[str, Any]:
        usage = "[uri, kind, after_id | null]"
        uri, analysis = self._open_design(args, usage)
        kind = _string(_arg(args, 1, usage, "kind"), usage, "kind")
        after = _arg(args, 2, usage, "after_id", required=False)
        if after is not None:
            after = _string(after, usage, "after_id")
        return await self._apply(uri, analysis, usage, f"Add a {kind} node",
                                 design_edits.add_node, kind, after)

    async def delete_node(self, *args: Any) -> dict[str, Any]:
        usage = "[uri, id]"
        uri, analysis = self._open_design(args, usage)
        node_id = _string(_arg(args, 1, usage, "id"), usage, "id")
        return await self._apply(uri, analysis, usage, f"Delete node {node_id}",
                                 design_edits.delete_node, node_id)

    async def rename_node(self, *args: Any) -> dict[str, Any]:
        usage = "[uri, id, new_id]"
        uri, analysis = self._open_design(args, usage)
        node_id, new_id = (_string(_arg(args, i, usage, what), usage, what)
                           for i, what in ((1, "id"), (2, "new_id")))
        return await self._apply(uri, analysis, usage, f"Rename node {node_id} to {new_id}",
                                 design_edits.rename_node, node_id, new_id)

    async def set_field(self, *args: Any) -> dict[str, Any]:
        usage = "[uri, id, field, value]"
        uri, analysis = self._open_design(args, usage)
        node_id, name = (_string(_arg(args, i, usage, what), usage, what)
                         for i, what in ((1, "id"), (2, "field")))
        if len(args) < 4:
            raise bad_arguments(usage, "missing value (any JSON value, null included)")
        return await self._apply(uri, analysis, usage, f"Set {name} of {node_id}",
                                 design_edits.set_field, node_id, name, args[3])

    async def _apply(self, uri: str, analysis: Analysis, usage: str, label: str,
                     compute: Callable[..., design_edits.DesignEdit],
                     *args: Any) -> dict[str, Any]:
        """Compute the edit on the analysed text, have the editor apply it; the answer."""
        try:
            result = compute(analysis.doc, *args)
        except design_edits.DesignEditError as exc:
            raise bad_arguments(usage, str(exc)) from None
        encoding = self.server.encoding
        edits = [convert.text_edit(analysis.lines, start, end, text, encoding)
                 for start, end, text in result.edits]
        answer = await self.server.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(
            edit=self._workspace_edit(uri, analysis.version, edits), label=label))
        out: dict[str, Any] = {"applied": bool(answer.applied), "id": result.id}
        if not answer.applied and answer.failure_reason:
            out["reason"] = answer.failure_reason
        return out

    def _workspace_edit(self, uri: str, version: int | None,
                        edits: list[types.TextEdit]) -> types.WorkspaceEdit:
        """A versioned TextDocumentEdit (the editor refuses it if the text moved on), or
        plain `changes` for a client without `documentChanges`."""
        caps = self.server.client_capabilities
        workspace_edit = caps.workspace.workspace_edit if caps and caps.workspace else None
        if workspace_edit is None or not workspace_edit.document_changes:
            return types.WorkspaceEdit(changes={uri: edits})
        return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
            text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri,
                                                                        version=version),
            edits=edits)])


def _read_closed(uri: str) -> tuple[Any, list[Any], LineIndex]:
    """A design that is not open: its file's text, parsed and checked."""
    from hwf_lsp.workflow.stores import read_text_file

    path = uri_to_path(uri)
    if path is None:
        raise CommandError(f"{uri} is not open in the editor and is not a file")
    try:
        text = read_text_file(path)
    except FileNotFoundError:
        raise CommandError(f"{path}: no such file") from None
    except ValueError as exc:
        raise CommandError(f"{path} {exc}") from None
    doc = parse(text)
    return doc, check_document(doc), LineIndex(text)


def _refusing(command: str, handler: Callable[..., Coroutine[Any, Any, Any]]
              ) -> Callable[..., Any]:
    """Every failure is a JSON-RPC error naming the command (the canvas shows it)."""

    async def run(*args):  # unannotated: pygls passes the raw JSON arguments through
        try:
            return await handler(*args)
        except RequestRefused:
            raise
        except Exception as exc:  # noqa: BLE001 - every failure is an answer
            message, code = _message_of(exc)
            raise RequestRefused(message=f"{command}: {message}", code=code) from None

    run.__name__ = handler.__name__
    return run


def register(server: HwfServer) -> None:
    canvas = Canvas(server)
    handlers = {
        GRAPH: canvas.graph,
        CONNECT: canvas.connect,
        DISCONNECT: canvas.disconnect,
        ADD_NODE: canvas.add_node,
        DELETE_NODE: canvas.delete_node,
        RENAME_NODE: canvas.rename_node,
        SET_FIELD: canvas.set_field,
    }
    for name, handler in handlers.items():
        server.command(name)(_refusing(name, handler))
