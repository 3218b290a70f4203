"""One module per LSP method, each with a `register(server)`; `register_all` calls them.

The order is the order their handlers are registered in.  A new feature is a module
here and one line in `register_all`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hwf_lsp.server.features import (
    canvas,
    code_actions,
    code_lens,
    commands,
    completion,
    definition,
    diagnostics,
    document_symbols,
    hover,
    inlay_hints,
    references,
    rename,
    workspace_symbols,
)

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer


def register_all(server: HwfServer) -> None:
    """Every feature's handlers on `server`."""
    diagnostics.register(server)
    completion.register(server)
    hover.register(server)
    definition.register(server)
    references.register(server)
    rename.register(server)
    document_symbols.register(server)
    workspace_symbols.register(server)
    code_actions.register(server)
    inlay_hints.register(server)
    code_lens.register(server)
    commands.register(server)
    canvas.register(server)
