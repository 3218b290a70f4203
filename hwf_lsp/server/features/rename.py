"""textDocument/rename and prepareRename: node ids only, every reference updated."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from hwf_lsp.analysis.navigation import RenameError, prepare_rename
from hwf_lsp.analysis.navigation import rename as rename_edits
from hwf_lsp.server import convert
from hwf_lsp.server.guard import RequestRefused, guarded

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer

REQUEST_FAILED = -32803


def register(server: HwfServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    @guarded()
    def prepare(params: types.PrepareRenameParams) -> types.PrepareRenamePlaceholder | None:
        analysis = server.analysis(params.text_document.uri)
        if analysis is None:
            return None
        encoding = server.encoding
        offset = convert.to_offset(analysis.lines, params.position, encoding)
        occ = prepare_rename(analysis.doc, offset)
        if occ is None:
            return None
        return types.PrepareRenamePlaceholder(
            range=convert.to_range(analysis.lines, occ.start, occ.end, encoding),
            placeholder=occ.node_id)

    @server.feature(types.TEXT_DOCUMENT_RENAME,
                    types.RenameOptions(prepare_provider=True))
    @guarded()
    def rename(params: types.RenameParams) -> types.WorkspaceEdit | None:
        analysis = server.analysis(params.text_document.uri)
        if analysis is None:
            return None
        encoding = server.encoding
        offset = convert.to_offset(analysis.lines, params.position, encoding)
        try:
            edits = rename_edits(analysis.doc, offset, params.new_name)
        except RenameError as error:
            raise RequestRefused(str(error), code=REQUEST_FAILED) from None
        uri = params.text_document.uri
        return types.WorkspaceEdit(changes={uri: [
            convert.text_edit(analysis.lines, start, end, text, encoding)
            for start, end, text in edits
        ]})
