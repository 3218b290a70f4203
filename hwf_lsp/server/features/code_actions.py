"""textDocument/codeAction: quick fixes for the findings under the requested range, and
`source.fixAll.hwf`, every safe fix in one edit (analysis/fix_all.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from hwf_lsp.analysis.fix_all import fix_all, minimal_edit
from hwf_lsp.analysis.fixes import fixes_for
from hwf_lsp.server import convert
from hwf_lsp.server.features.request import on_design
from hwf_lsp.server.guard import guarded

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer

FIX_ALL = "source.fixAll.hwf"


def wanted(only: list | None) -> tuple[bool, bool]:
    """(quick fixes, fix all) for a request's `only` kinds: a kind asks for its own
    sub-kinds (`source.fixAll` and `source` include `source.fixAll.hwf`)."""
    if not only:
        return True, True
    kinds = [str(getattr(k, "value", k)) for k in only]
    quick = any(k == "quickfix" or k.startswith("quickfix.") for k in kinds)
    every = any(FIX_ALL == k or FIX_ALL.startswith(k + ".") for k in kinds)
    return quick, every


def register(server: HwfServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                    types.CodeActionOptions(code_action_kinds=[
                        types.CodeActionKind.QuickFix, FIX_ALL]))
    @guarded(default=list)
    def code_action(params: types.CodeActionParams) -> list[types.CodeAction] | None:
        quick, every = wanted(params.context.only if params.context else None)
        if not quick and not every:
            return []
        at = on_design(server, params)
        if at is None:
            return None
        actions = []
        run = at.analysis.run
        outputs = run.outputs if run is not None else None
        if quick:
            start, end = at.offsets(params.range)
            for fix in fixes_for(at.doc, _findings_here(at, start, end), outputs, at.design):
                edits = [convert.text_edit(at.lines, s, e, text, at.encoding)
                         for s, e, text in fix.edits]
                actions.append(types.CodeAction(
                    title=fix.title,
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[convert.diagnostic(fix.finding, at.lines, at.encoding, at.uri)],
                    is_preferred=fix.preferred or None,
                    edit=types.WorkspaceEdit(changes={at.uri: edits}),
                ))
        if every and at.analysis.findings:
            result = fix_all(at.doc.text, outputs)
            if result.applied:
                start, end, text = minimal_edit(at.doc.text, result.text)
                actions.append(types.CodeAction(
                    title=f"Fix all: {len(result.applied)} safe fixes "
                    f"({result.before} findings → {result.after})",
                    kind=FIX_ALL,
                    edit=types.WorkspaceEdit(changes={at.uri: [
                        convert.text_edit(at.lines, start, end, text, at.encoding)]}),
                ))
        return actions


def _findings_here(at, start: int, end: int) -> list:
    """The findings under [start, end], and the other findings of their nodes that start
    on the same line: a node's right fix (rename `promt`) shows wherever on its line the
    cursor meets one of its findings."""
    findings = at.analysis.findings
    touching = [f for f in findings if f.start <= end and start <= f.end]
    lines = {(f.index, at.lines.position(f.start)[0]) for f in touching if f.index is not None}
    lines |= {(f.index, at.lines.position(start)[0]) for f in touching if f.index is not None}
    more = [f for f in findings if f not in touching and f.index is not None
            and (f.index, at.lines.position(f.start)[0]) in lines]
    return touching + more
