"""textDocument/diagnostic: the findings of a design, for a client that pulls them.

The answer is the check the Validator runs on every change (features/diagnostics.py),
waited for when one is in flight; such a client is never pushed diagnostics.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import unquote

from lsprotocol import types

from hwf_lsp.server import convert
from hwf_lsp.server.guard import guarded

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer

IDENTIFIER = "hwf"


def empty_report() -> types.RelatedFullDocumentDiagnosticReport:
    """The answer for a document that is not a design (or when checking it failed)."""
    return types.RelatedFullDocumentDiagnosticReport(items=[])


def register(server: HwfServer) -> None:
    validator = server.validator

    @server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC,
                    types.DiagnosticOptions(inter_file_dependencies=False,
                                            workspace_diagnostics=False,
                                            identifier=IDENTIFIER))
    @guarded(default=empty_report)
    async def document_diagnostic(params: types.DocumentDiagnosticParams
                                  ) -> types.RelatedFullDocumentDiagnosticReport:
        uri = params.text_document.uri
        key = unquote(uri)
        analysis = await validator.current(key) if server.is_checked(uri) else None
        if analysis is None:
            return empty_report()
        validator.pulled[key] = analysis.version
        return types.RelatedFullDocumentDiagnosticReport(
            items=convert.diagnostics(analysis.findings, analysis.lines, server.encoding, uri))
