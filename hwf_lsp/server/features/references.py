"""textDocument/references: every `id`, `after` entry and `out.<id>` of one node id, and
where the design test files that name the design name it (server/design_test_links.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from hwf_lsp.analysis.navigation import references as references_at
from hwf_lsp.analysis.test_file_names import node_id_spans
from hwf_lsp.server import convert
from hwf_lsp.server.design_test_links import test_files_naming
from hwf_lsp.server.features.rename import design_name_of
from hwf_lsp.server.features.request import on_design
from hwf_lsp.server.guard import guarded

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer


def register(server: HwfServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    @guarded()
    def references(params: types.ReferenceParams) -> list[types.Location] | None:
        at = on_design(server, params)
        if at is None:
            return None
        include = params.context.include_declaration if params.context else True
        found = references_at(at.doc, at.offset(params.position), include_declaration=include,
                              design=at.design)
        locations = [convert.location(at.uri, at.lines, o.start, o.end, at.encoding)
                     for o in found]
        if found:
            design = at.doc.to_python()
            for test in test_files_naming(server, at.uri, design_name_of(at)):
                locations += [convert.location(test.uri, test.lines, start, end, at.encoding)
                              for start, end in node_id_spans(test.doc, design,
                                                              found[0].node_id)]
        return locations
