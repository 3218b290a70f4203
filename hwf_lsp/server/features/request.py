"""`on_design` (`on_test_file`): the opening every text-document handler shares.

Each handler starts the same way: the document's analysis (None when the URI is not a
design, and then the answer is None), the client's position encoding, and offsets for
the positions it sent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hwf_lsp.server import convert

if TYPE_CHECKING:
    from lsprotocol import types

    from hwf_lsp.analysis.design import Design
    from hwf_lsp.jsontext.positions import LineIndex
    from hwf_lsp.server.documents import Analysis
    from hwf_lsp.server.server import HwfServer


@dataclass(frozen=True, slots=True)
class DesignRequest:
    """A request about an open design: where, its analysis, and the negotiated encoding."""

    uri: str
    analysis: Analysis
    encoding: str

    @property
    def lines(self) -> LineIndex:
        return self.analysis.lines

    @property
    def doc(self) -> Any:
        return self.analysis.doc

    @property
    def design(self) -> Design:
        return self.analysis.design

    def offset(self, position: types.Position) -> int:
        return convert.to_offset(self.analysis.lines, position, self.encoding)

    def offsets(self, span: types.Range) -> tuple[int, int]:
        return self.offset(span.start), self.offset(span.end)


def on_design(server: HwfServer, params: Any) -> DesignRequest | None:
    """The request's document as a design, or None when the URI is not one."""
    uri = params.text_document.uri
    analysis = server.analysis(uri)
    if analysis is None:
        return None
    return DesignRequest(uri, analysis, server.encoding)


def on_test_file(server: HwfServer, params: Any) -> DesignRequest | None:
    """The request's document as a design test file (its analysis holds the design under
    test), or None when it is not one."""
    uri = params.text_document.uri
    analysis = server.test_analysis(uri)
    if analysis is None:
        return None
    return DesignRequest(uri, analysis, server.encoding)
