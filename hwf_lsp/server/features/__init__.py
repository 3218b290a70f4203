"""One module per LSP method, each with a `register(server)`; `register_all` calls them.

The order is the order their handlers are registered in.  A new feature is a module
here and one line in `register_all`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hwf_lsp.server.features import (
    call_hierarchy,
    canvas,
    code_actions,
    code_lens,
    commands,
    completion,
    definition,
    diagnostics,
    document_diagnostic,
    document_highlight,
    document_symbols,
    folding_range,
    formatting,
    hover,
    inlay_hints,
    references,
    rename,
    selection_range,
    semantic_tokens,
    workspace_symbols,
)

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer


def register_all(server: HwfServer) -> None:
    """Every feature's handlers on `server`."""
    diagnostics.register(server)
    document_diagnostic.register(server)
    completion.register(server)
    hover.register(server)
    definition.register(server)
    references.register(server)
    rename.register(server)
    document_symbols.register(server)
    document_highlight.register(server)
    folding_range.register(server)
    selection_range.register(server)
    formatting.register(server)
    call_hierarchy.register(server)
    semantic_tokens.register(server)
    workspace_symbols.register(server)
    code_actions.register(server)
    inlay_hints.register(server)
    code_lens.register(server)
    commands.register(server)
    canvas.register(server)
