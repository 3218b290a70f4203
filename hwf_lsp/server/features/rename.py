"""textDocument/rename and prepareRename: a node id, every reference updated, in the design
and in the design test files that name it; the design's `name`, and the test files that
name the design by it (server/design_test_links.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from hwf_lsp.analysis.navigation import RenameError, prepare_rename
from hwf_lsp.analysis.navigation import rename as rename_edits
from hwf_lsp.analysis.test_file_names import design_name_at, design_reference_span, node_id_spans
from hwf_lsp.rules.names import check_design_name
from hwf_lsp.server import convert
from hwf_lsp.server.design_test_links import test_files_naming
from hwf_lsp.server.documents import uri_to_path
from hwf_lsp.server.features.request import DesignRequest, on_design
from hwf_lsp.server.guard import RequestRefused, guarded
from hwf_lsp.workflow.design_files import design_name_for

if TYPE_CHECKING:
    from hwf_lsp.jsontext.positions import LineIndex
    from hwf_lsp.server.server import HwfServer

REQUEST_FAILED = -32803
FileEdits = dict[str, tuple[int | None, list[types.TextEdit]]]
"""uri -> (the open document's version or None, its edits)."""


def design_name_of(at: DesignRequest) -> str | None:
    return design_name_for(at.doc.to_python(), uri_to_path(at.uri) or at.uri)


def _text_edits(lines: LineIndex, spans, new_text: str, encoding: str) -> list[types.TextEdit]:
    return [convert.text_edit(lines, start, end, new_text, encoding) for start, end in spans]


def workspace_edit(server: HwfServer, files: FileEdits) -> types.WorkspaceEdit:
    """Versioned TextDocumentEdits (the editor refuses one whose text moved on), or plain
    `changes` for a client without `documentChanges`."""
    caps = server.client_capabilities
    edit_caps = caps.workspace.workspace_edit if caps and caps.workspace else None
    if edit_caps is None or not edit_caps.document_changes:
        return types.WorkspaceEdit(changes={uri: edits for uri, (_, edits) in files.items()})
    return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
        text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
        edits=edits) for uri, (version, edits) in files.items() if edits])


def _rename_node(server: HwfServer, at: DesignRequest, offset: int, new_id: str) -> FileEdits:
    try:
        edits = rename_edits(at.doc, offset, new_id, at.design)
    except RenameError as error:
        raise RequestRefused(str(error), code=REQUEST_FAILED) from None
    old_id = prepare_rename(at.doc, offset, at.design).node_id  # type: ignore[union-attr]
    files: FileEdits = {at.uri: (at.analysis.version, [
        convert.text_edit(at.lines, start, end, text, at.encoding) for start, end, text in edits])}
    design = at.doc.to_python()
    for test in test_files_naming(server, at.uri, design_name_of(at)):
        spans = node_id_spans(test.doc, design, old_id)
        if spans:
            files[test.uri] = (test.version, _text_edits(test.lines, spans, new_id, at.encoding))
    return files


def _rename_design(server: HwfServer, at: DesignRequest, named: tuple[int, int, str],
                   new_name: str) -> FileEdits:
    start, end, old_name = named
    try:
        check_design_name(new_name)
    except ValueError as error:
        raise RequestRefused(str(error), code=REQUEST_FAILED) from None
    files: FileEdits = {at.uri: (at.analysis.version, _text_edits(
        at.lines, [(start, end)], new_name, at.encoding))}
    for test in test_files_naming(server, at.uri, old_name):
        ref = design_reference_span(test.doc)
        if ref is not None and ref[2] == old_name:  # a path to the file stays as it is
            files[test.uri] = (test.version, _text_edits(
                test.lines, [ref[:2]], new_name, at.encoding))
    return files


def register(server: HwfServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    @guarded()
    def prepare(params: types.PrepareRenameParams) -> types.PrepareRenamePlaceholder | None:
        at = on_design(server, params)
        if at is None:
            return None
        offset = at.offset(params.position)
        named = design_name_at(at.doc, offset)
        if named is not None:
            return types.PrepareRenamePlaceholder(
                range=convert.to_range(at.lines, named[0], named[1], at.encoding),
                placeholder=named[2])
        occ = prepare_rename(at.doc, offset, at.design)
        if occ is None:
            return None
        return types.PrepareRenamePlaceholder(
            range=convert.to_range(at.lines, occ.start, occ.end, at.encoding),
            placeholder=occ.node_id)

    @server.feature(types.TEXT_DOCUMENT_RENAME,
                    types.RenameOptions(prepare_provider=True))
    @guarded()
    def rename(params: types.RenameParams) -> types.WorkspaceEdit | None:
        at = on_design(server, params)
        if at is None:
            return None
        offset = at.offset(params.position)
        named = design_name_at(at.doc, offset)
        files = (_rename_design(server, at, named, params.new_name) if named is not None
                 else _rename_node(server, at, offset, params.new_name))
        return workspace_edit(server, files)
