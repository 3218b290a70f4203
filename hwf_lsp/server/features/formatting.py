"""textDocument/formatting, rangeFormatting and onTypeFormatting (after `}` and `]`).

One layout (jsontext/layout.py) for the three ways a client asks for it; the
client's FormattingOptions choose the indent (tabSize, insertSpaces) and the final
newline.  A design with syntax errors gets no edits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from hwf_lsp.jsontext.layout import Layout, closed_container, format_edits
from hwf_lsp.server import convert
from hwf_lsp.server.features.request import DesignRequest, on_design
from hwf_lsp.server.guard import guarded

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer

ON_TYPE_TRIGGERS = ("}", "]")


def layout(options: types.FormattingOptions | None) -> Layout:
    """The client's options as a Layout; whatever is missing keeps json.dumps(indent=2)."""
    if options is None:
        return Layout()
    tab_size = options.tab_size if isinstance(options.tab_size, int) and \
        options.tab_size > 0 else 2
    return Layout(tab_size, options.insert_spaces is not False,
                  bool(options.insert_final_newline))


def _edits(at: DesignRequest, options: types.FormattingOptions | None, start: int = 0,
           end: int | None = None) -> list[types.TextEdit]:
    return [convert.text_edit(at.lines, s, e, text, at.encoding)
            for s, e, text in format_edits(at.doc, layout(options), start, end)]


def register(server: HwfServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_FORMATTING)
    @guarded(default=list)
    def formatting(params: types.DocumentFormattingParams) -> list[types.TextEdit] | None:
        at = on_design(server, params)
        return _edits(at, params.options) if at is not None else None

    @server.feature(types.TEXT_DOCUMENT_RANGE_FORMATTING)
    @guarded(default=list)
    def range_formatting(params: types.DocumentRangeFormattingParams
                         ) -> list[types.TextEdit] | None:
        at = on_design(server, params)
        if at is None:
            return None
        return _edits(at, params.options, *at.offsets(params.range))

    @server.feature(types.TEXT_DOCUMENT_ON_TYPE_FORMATTING,
                    types.DocumentOnTypeFormattingOptions(
                        first_trigger_character=ON_TYPE_TRIGGERS[0],
                        more_trigger_character=list(ON_TYPE_TRIGGERS[1:])))
    @guarded(default=list)
    def on_type_formatting(params: types.DocumentOnTypeFormattingParams
                           ) -> list[types.TextEdit] | None:
        at = on_design(server, params)
        if at is None:
            return None
        span = closed_container(at.doc, at.offset(params.position))
        return _edits(at, params.options, *span) if span is not None else []
