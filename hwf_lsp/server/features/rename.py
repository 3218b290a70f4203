"""textDocument/rename and prepareRename: node ids only, every reference updated."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from hwf_lsp.analysis.navigation import RenameError, prepare_rename
from hwf_lsp.analysis.navigation import rename as rename_edits
from hwf_lsp.server import convert
from hwf_lsp.server.features.request import on_design
from hwf_lsp.server.guard import RequestRefused, guarded

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer

REQUEST_FAILED = -32803


def register(server: HwfServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_PREPARE_RENAME)
    @guarded()
    def prepare(params: types.PrepareRenameParams) -> types.PrepareRenamePlaceholder | None:
        at = on_design(server, params)
        occ = None if at is None else prepare_rename(at.doc, at.offset(params.position), at.design)
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
        try:
            edits = rename_edits(at.doc, at.offset(params.position), params.new_name,
                                 at.design)
        except RenameError as error:
            raise RequestRefused(str(error), code=REQUEST_FAILED) from None
        return types.WorkspaceEdit(changes={at.uri: [
            convert.text_edit(at.lines, start, end, text, at.encoding)
            for start, end, text in edits
        ]})
