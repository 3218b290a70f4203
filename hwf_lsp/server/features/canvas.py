"""The canvas's commands: `hwf.graph` (the design as a graph), `hwf.edit.*` (its edits)
and `hwf.completeExpression` (the inspector's completion of a condition).

The graph is computed from the server's current text of the document, unsaved edits
included, with the findings the diagnostics use (`Analysis.findings`): the canvas and
the squiggles never disagree.  Broken JSON answers the last good graph of the document,
marked stale.  An edit is computed on that same text (analysis/design_edits.py) and
sent to the editor with `workspace/applyEdit` as a versioned TextDocumentEdit: the
editor applies it (its undo undoes it) and the server hears of it by didChange, as of
any keystroke.  Arguments and answers: docs/commands.md, "Canvas".
"""

from __future__ import annotations

import functools
from collections import OrderedDict
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from hwf_lsp.analysis import design_edits
from hwf_lsp.analysis.expression_completion import (
    ExpressionCompletionError,
    complete_expression,
)
from hwf_lsp.analysis.findings import check_document
from hwf_lsp.analysis.graph_view import graph_answer, lsp_ranges
from hwf_lsp.jsontext.jsontree import parse
from hwf_lsp.jsontext.positions import LineIndex
from hwf_lsp.server import convert
from hwf_lsp.server.documents import uri_to_path
from hwf_lsp.server.features.commands import (
    INVALID_PARAMS,
    CommandError,
    _arg,
    _string,
    bad_arguments,
    refusal,
)

if TYPE_CHECKING:
    from hwf_lsp.server.documents import Analysis
    from hwf_lsp.server.server import HwfServer

GRAPH = "hwf.graph"
CONNECT = "hwf.edit.connect"
DISCONNECT = "hwf.edit.disconnect"
ADD_NODE = "hwf.edit.addNode"
DELETE_NODE = "hwf.edit.deleteNode"
RENAME_NODE = "hwf.edit.renameNode"
SET_FIELD = "hwf.edit.setField"
REMOVE_FIELD = "hwf.edit.removeField"
COMPLETE_EXPRESSION = "hwf.completeExpression"
CANVAS_COMMANDS = (GRAPH, CONNECT, DISCONNECT, ADD_NODE, DELETE_NODE, RENAME_NODE, SET_FIELD,
                   REMOVE_FIELD, COMPLETE_EXPRESSION)

LAST_GOOD_KEPT = 64
"""Documents whose last good graph is kept (for the stale answer on broken JSON)."""


STRING, OPTIONAL, ANY = "string", "string or null", "any JSON value"


@dataclass(frozen=True, slots=True)
class EditCommand:
    """An `hwf.edit.*` command: its arguments after the uri, the edit, the undo label."""

    arguments: tuple[tuple[str, str], ...]
    """(name, STRING | OPTIONAL | ANY) of each argument after the uri."""
    compute: Callable[..., design_edits.DesignEdit]
    label: str

    @property
    def usage(self) -> str:
        return "[" + ", ".join(["uri", *(name if kind == STRING else f"{name} ({kind})"
                                         for name, kind in self.arguments)]) + "]"

    def argument(self, args: tuple[Any, ...], index: int) -> Any:
        name, kind = self.arguments[index - 1]
        if kind == ANY:
            if index >= len(args):
                raise bad_arguments(self.usage, f"missing {name} ({kind}, null included)")
            return args[index]
        value = _arg(args, index, self.usage, name, required=kind == STRING)
        return None if value is None else _string(value, self.usage, name)


EDITS: dict[str, EditCommand] = {
    CONNECT: EditCommand((("from_id", STRING), ("to_id", STRING)), design_edits.connect,
                         "Connect {0} to {1}"),
    DISCONNECT: EditCommand((("from_id", STRING), ("to_id", STRING)), design_edits.disconnect,
                            "Disconnect {0} from {1}"),
    ADD_NODE: EditCommand((("kind", STRING), ("after_id", OPTIONAL)), design_edits.add_node,
                          "Add a {0} node"),
    DELETE_NODE: EditCommand((("id", STRING),), design_edits.delete_node, "Delete node {0}"),
    RENAME_NODE: EditCommand((("id", STRING), ("new_id", STRING)), design_edits.rename_node,
                             "Rename node {0} to {1}"),
    SET_FIELD: EditCommand((("id", STRING), ("field", STRING), ("value", ANY)),
                           design_edits.set_field, "Set {1} of {0}"),
    REMOVE_FIELD: EditCommand((("id", STRING), ("field", STRING)), design_edits.remove_field,
                              "Remove {1} of {0}"),
}


class Canvas:
    """The handlers, bound to one server; the last good graph of each document."""

    def __init__(self, server: HwfServer) -> None:
        self.server = server
        self.last_good: OrderedDict[str, dict[str, Any]] = OrderedDict()

    # --- the graph ------------------------------------------------------------------

    async def graph(self, *args: Any) -> dict[str, Any]:
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
        return answer

    def _design_uri(self, args: tuple[Any, ...], usage: str) -> str:
        uri = _string(_arg(args, 0, usage, "uri"), usage, "uri")
        if not self.server.is_design(uri):
            raise bad_arguments(usage, f"{uri} is not a design (see the setting hwf.designs.globs)")
        return uri

    # --- completion of the inspector's expression -------------------------------------

    async def complete_expression(self, *args: Any) -> dict[str, Any]:
        """What the text editor offers in a condition's expression, for the canvas's
        inspector: `[uri, node_id, expression, offset]` (offset in UTF-16 code units)."""
        usage = "[uri, node_id, expression, offset]"
        uri = self._design_uri(args, usage)
        node_id = _string(_arg(args, 1, usage, "node_id"), usage, "node_id")
        expression = _arg(args, 2, usage, "expression")
        offset = _arg(args, 3, usage, "offset")
        if not isinstance(expression, str):
            raise bad_arguments(usage, "expression must be a string")
        if not isinstance(offset, int) or isinstance(offset, bool):
            raise bad_arguments(usage, "offset must be a whole number")
        analysis = self.server.analysis(uri)
        doc, run = (analysis.doc, analysis.run) if analysis is not None \
            else (_read_closed(uri)[0], None)
        try:
            return complete_expression(doc, node_id, expression, offset, run)
        except ExpressionCompletionError as exc:
            raise bad_arguments(usage, str(exc)) from None

    # --- the edits ------------------------------------------------------------------

    def _open_design(self, args: tuple[Any, ...], usage: str) -> tuple[str, Analysis]:
        uri = self._design_uri(args, usage)
        analysis = self.server.analysis(uri)
        if analysis is None:
            raise bad_arguments(usage, f"{uri} is not open in the editor: the canvas edits "
                                "the open document")
        return uri, analysis

    async def edit(self, spec: EditCommand, *args: Any) -> dict[str, Any]:
        """One `hwf.edit.*` command: its arguments checked, the edit made and applied."""
        uri, analysis = self._open_design(args, spec.usage)
        values = [spec.argument(args, index) for index in range(1, len(spec.arguments) + 1)]
        try:
            result = spec.compute(analysis.doc, *values)
        except design_edits.DesignEditError as exc:
            # why the edit cannot be made, for the person who tried it: no argument list
            raise CommandError(str(exc), INVALID_PARAMS) from None
        return await self._apply(uri, analysis, result, spec.label.format(*values))

    async def _apply(self, uri: str, analysis: Analysis, result: design_edits.DesignEdit,
                     label: str) -> dict[str, Any]:
        """Have the editor apply the edit; the answer."""
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


def refusing(server: HwfServer, command: str,
              handler: Callable[..., Coroutine[Any, Any, Any]]) -> Callable[..., Any]:
    """Every failure is a JSON-RPC error naming the command (`refusal`: shown with
    window/showMessage, but for an edit, which the canvas says why in its own words)."""

    async def run(*args):  # unannotated: pygls passes the raw JSON arguments through
        try:
            return await handler(*args)
        except Exception as exc:  # noqa: BLE001 - every failure is an answer
            raise refusal(server, command, exc) from None

    run.__name__ = command.replace(".", "_")
    return run


def register(server: HwfServer) -> None:
    canvas = Canvas(server)
    server.command(GRAPH)(refusing(server, GRAPH, canvas.graph))
    server.command(COMPLETE_EXPRESSION)(refusing(server, COMPLETE_EXPRESSION,
                                                 canvas.complete_expression))
    for name, spec in EDITS.items():
        server.command(name)(refusing(server, name, functools.partial(canvas.edit, spec)))
