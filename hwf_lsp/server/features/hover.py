"""textDocument/hover: kinds, fields and node references (with the newest run); in a
design test file, the node an id names.

The analysis writes markdown; a client that takes only plain text gets it without the
markup we add (`**bold**`, `` `code` ``, code fences, `> ` quotes).  A JSON preview
inside a fence is kept exactly."""

from __future__ import annotations

import dataclasses
import re
from typing import TYPE_CHECKING

from lsprotocol import types

from hwf_lsp.analysis.design_test_text import hover_test_file
from hwf_lsp.analysis.hover_text import hover as hover_at
from hwf_lsp.analysis.hover_text import with_gate
from hwf_lsp.server import convert
from hwf_lsp.server.features.completion import supports_markdown
from hwf_lsp.server.features.request import on_design, on_test_file
from hwf_lsp.server.guard import guarded

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer


_BOLD = re.compile(r"\*\*(.+?)\*\*")
_CODE = re.compile(r"`([^`\n]+)`")


def plain_text(markdown: str) -> str:
    """The hover's markdown as plain text (see the module docstring)."""
    lines, fenced = [], False
    for line in markdown.split("\n"):
        if line.startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            line = _CODE.sub(r"\1", _BOLD.sub(r"\1", line))
            line = line[2:] if line.startswith("> ") else line
        lines.append(line)
    return "\n".join(lines)


def register(server: HwfServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @guarded()
    def hover(params: types.HoverParams) -> types.Hover | None:
        at = on_design(server, params)
        if at is not None:
            result = hover_at(at.doc, at.offset(params.position), at.analysis.run, at.design)
            if result is not None and result.about_model:  # the gate is read for this hover only
                result = with_gate(result, server.settings.model_gate())
        else:
            at = on_test_file(server, params)
            result = hover_test_file(at.doc, at.offset(params.position),
                                     at.analysis.design_under_test) if at is not None else None
        if result is None or at is None:
            return None
        markdown = supports_markdown(server, "text_document.hover.content_format")
        if not markdown:
            result = dataclasses.replace(result, markdown=plain_text(result.markdown))
        return convert.hover(result, at.lines, at.encoding, markdown)
