"""textDocument/inlayHint: run-plan position (#2) and newest-run status after each id."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from hwf_lsp.analysis.hints import PLAN
from hwf_lsp.analysis.hints import hints as hints_for
from hwf_lsp.server import convert
from hwf_lsp.server.features.request import on_design
from hwf_lsp.server.guard import guarded

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer


def register(server: HwfServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
    @guarded(default=list)
    def inlay_hint(params: types.InlayHintParams) -> list[types.InlayHint] | None:
        at = on_design(server, params)
        if at is None:
            return None
        start, end = at.offsets(params.range)
        return [
            types.InlayHint(
                position=convert.position(at.lines, hint.offset, at.encoding),
                label=hint.label,
                kind=types.InlayHintKind.Type if hint.kind == PLAN
                else types.InlayHintKind.Parameter,
                tooltip=hint.tooltip,
                padding_left=True,
            )
            for hint in hints_for(at.doc, at.analysis.run, start, end, at.design)
        ]
