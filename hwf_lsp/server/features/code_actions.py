"""textDocument/codeAction: quick fixes for the findings under the requested range."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from hwf_lsp.analysis.fixes import fixes_for
from hwf_lsp.server import convert
from hwf_lsp.server.features.request import on_design
from hwf_lsp.server.guard import guarded

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer


def register(server: HwfServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
    @guarded(default=list)
    def code_action(params: types.CodeActionParams) -> list[types.CodeAction] | None:
        only = params.context.only if params.context else None
        if only and not any(str(getattr(k, "value", k)).startswith("quickfix") for k in only):
            return []
        at = on_design(server, params)
        if at is None:
            return None
        start, end = at.offsets(params.range)
        touching = [f for f in at.analysis.findings if f.start <= end and start <= f.end]
        actions = []
        run = at.analysis.run
        for fix in fixes_for(at.doc, touching, run.outputs if run is not None else None):
            edits = [convert.text_edit(at.lines, s, e, text, at.encoding)
                     for s, e, text in fix.edits]
            actions.append(types.CodeAction(
                title=fix.title,
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[convert.diagnostic(fix.finding, at.lines, at.encoding, at.uri)],
                is_preferred=fix.preferred or None,
                edit=types.WorkspaceEdit(changes={at.uri: edits}),
            ))
        return actions
