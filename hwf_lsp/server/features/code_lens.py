"""textDocument/codeLens: run actions above the nodes of a design.

"▶ Start run" on the trigger, "▶ Run from here" on every step, and, following
the newest run of the design (RunsIndex): "Answer…" on a parked approval,
"Respond…" on a parked agent step and "↻ Retry from here" on the step a run
failed at.  Each lens carries the arguments of its command (docs/commands.md).
The runs watcher sends workspace/codeLens/refresh when a run changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from hwf_lsp.analysis.design import design_of
from hwf_lsp.server import convert
from hwf_lsp.server.features.commands import (
    ANSWER_APPROVAL,
    LIST_RUNS,
    RESPOND_AGENT,
    RUN_FROM_HERE,
    START_RUN,
)
from hwf_lsp.server.features.request import on_design
from hwf_lsp.server.guard import guarded
from hwf_lsp.workflow.vocabulary import STEP_KINDS, TRIGGER

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer

START_TITLE = "▶ Start run"
FROM_HERE_TITLE = "▶ Run from here"
ANSWER_TITLE = "Answer…"
RESPOND_TITLE = "Respond…"
RETRY_TITLE = "↻ Retry from here"


def lens_specs(design: Any, uri: str, run: Any) -> list[tuple[int, str, str, list[Any]]]:
    """(offset, title, command, arguments) per lens, in document order.

    `run` is the newest run of the design (runs_index.RunInfo) or None.
    """
    state = run.state if run is not None else {}
    status = state.get("status")
    pending = state.get("pending") if isinstance(state.get("pending"), dict) else {}
    waiting_at = pending.get("node") if status in ("awaiting_agent", "awaiting_approval") \
        else None
    failed_at = run.failed_node() if run is not None else None  # workflow.run_facts rule
    specs: list[tuple[int, str, str, list[Any]]] = []
    for info in design.infos:
        if info.id is None or info.obj is None:
            continue
        at = info.obj.start
        if info.kind == TRIGGER:
            specs.append((at, START_TITLE, START_RUN, [uri]))
            if run is not None:
                specs.append((at, f"last run {run.run_id}: {status}", LIST_RUNS,
                               [{"design": run.name}]))
            continue
        if info.kind not in STEP_KINDS:
            continue
        specs.append((at, FROM_HERE_TITLE, RUN_FROM_HERE, [uri, info.id]))
        if info.id == waiting_at and status == "awaiting_approval":
            specs.append((at, ANSWER_TITLE, ANSWER_APPROVAL, [run.run_id]))
        elif info.id == waiting_at and status == "awaiting_agent":
            specs.append((at, RESPOND_TITLE, RESPOND_AGENT, [run.run_id]))
        if info.id == failed_at:
            specs.append((at, RETRY_TITLE, RUN_FROM_HERE, [uri, info.id, run.run_id]))
    return specs


def register(server: HwfServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    @guarded(default=list)
    def code_lens(params: types.CodeLensParams) -> list[types.CodeLens]:
        if not server.settings.runs_enabled:
            return []
        at = on_design(server, params)
        if at is None:
            return []
        lenses = []
        for offset, title, command, arguments in lens_specs(
                design_of(at.doc), at.uri, at.analysis.run):
            lenses.append(types.CodeLens(
                range=convert.to_range(at.lines, offset, offset, at.encoding),
                command=types.Command(title=title, command=command, arguments=arguments)))
        return lenses
