"""textDocument/documentHighlight: every occurrence of the node id under the cursor.

Its `id` (written), its `after` entries and `out.<id>` in conditions (read).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from hwf_lsp.analysis.navigation import DEFINITION, references
from hwf_lsp.server import convert
from hwf_lsp.server.features.request import on_design
from hwf_lsp.server.guard import guarded

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer


def register(server: HwfServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_HIGHLIGHT)
    @guarded(default=list)
    def document_highlight(params: types.DocumentHighlightParams
                           ) -> list[types.DocumentHighlight] | None:
        at = on_design(server, params)
        if at is None:
            return None
        return [
            types.DocumentHighlight(
                range=convert.to_range(at.lines, o.start, o.end, at.encoding),
                kind=types.DocumentHighlightKind.Write if o.role == DEFINITION
                else types.DocumentHighlightKind.Read)
            for o in references(at.doc, at.offset(params.position), design=at.design)
        ]
