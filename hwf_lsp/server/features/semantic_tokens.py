"""textDocument/semanticTokens/full and /range: the parts of every condition string
(`out`, node id, path segments, operator, literal); everything else is left to the
client's JSON grammar."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from hwf_lsp.analysis.condition_tokens import TOKEN_TYPES, condition_tokens
from hwf_lsp.server.features.request import DesignRequest, on_design
from hwf_lsp.server.guard import guarded

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer

LEGEND = types.SemanticTokensLegend(token_types=list(TOKEN_TYPES), token_modifiers=[])


def encode(at: DesignRequest, start: int = 0, end: int | None = None) -> list[int]:
    """The LSP integer encoding: per token, line delta, start delta, length, type, 0."""
    data: list[int] = []
    last_line = last_char = 0
    for s, e, kind in condition_tokens(at.doc, start, end, at.design):
        line, char = at.lines.position(s, at.encoding)
        end_line, end_char = at.lines.position(e, at.encoding)
        if end_line != line or end_char <= char:
            continue  # a token never spans lines in valid JSON; skip the odd one
        data += [line - last_line, char - last_char if line == last_line else char,
                 end_char - char, kind, 0]
        last_line, last_char = line, char
    return data


def register(server: HwfServer) -> None:
    # pygls builds the provider from the legend and the methods registered (full, range)
    @server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_FULL, LEGEND)
    @guarded()
    def full(params: types.SemanticTokensParams) -> types.SemanticTokens | None:
        at = on_design(server, params)
        return types.SemanticTokens(data=encode(at)) if at is not None else None

    @server.feature(types.TEXT_DOCUMENT_SEMANTIC_TOKENS_RANGE, LEGEND)
    @guarded()
    def in_range(params: types.SemanticTokensRangeParams) -> types.SemanticTokens | None:
        at = on_design(server, params)
        if at is None:
            return None
        return types.SemanticTokens(data=encode(at, *at.offsets(params.range)))
