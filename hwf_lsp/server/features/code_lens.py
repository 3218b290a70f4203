"""textDocument/codeLens: run actions above the nodes of a design.

"▶ Start run" on the trigger, "▶ Run from here" on every step, and, following
the newest run of the design (NewestRunsByDesign) and its run facts: its status and progress on
the trigger, each step's state (opening the step's detail, `hwf.showStep`), "Answer…"
on a waiting approval, "Respond…" on a waiting agent step and "↻ Retry from here" on
the step a run failed at.  Each lens carries the arguments of its command (docs/commands.md).
The runs watcher sends workspace/codeLens/refresh when a run changes.

A design with errors cannot run (the runner refuses it): instead of run actions on every
node it gets one lens at its top saying why (a title without a command, drawn as text),
and keeps the lenses of its newest run (issue 47).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lsprotocol import types

from hwf_lsp.rules.run_facts import progress_of
from hwf_lsp.rules.step_words import STEP_FAILED, STEP_WAITING, progress_text, step_label
from hwf_lsp.rules.vocabulary import STEP_KINDS, TRIGGER
from hwf_lsp.server import convert
from hwf_lsp.server.features.commands import (
    ANSWER_APPROVAL,
    LIST_RUNS,
    RESPOND_AGENT,
    RUN_FROM_HERE,
    SHOW_STEP,
    START_RUN,
)
from hwf_lsp.server.features.request import on_design
from hwf_lsp.server.guard import guarded

if TYPE_CHECKING:
    from hwf_lsp.server.server import HwfServer

START_TITLE = "▶ Start run"
FROM_HERE_TITLE = "▶ Run from here"
ANSWER_TITLE = "Answer…"
RESPOND_TITLE = "Respond…"
RETRY_TITLE = "↻ Retry from here"
RUN_ACTIONS = frozenset({START_RUN, RUN_FROM_HERE})


def not_runnable_title(errors: int) -> str:
    return f"⚠ Cannot run: {errors} error{'s' if errors != 1 else ''} to fix first (Problems)"


def runnable_specs(specs: list[tuple[int, str, str, list[Any]]], errors: int
                   ) -> list[tuple[int, str, str, list[Any]]]:
    """`specs` for a design with `errors`: without run actions, and one lens saying why."""
    if not errors:
        return specs
    return [(0, not_runnable_title(errors), "", []),
            *(spec for spec in specs if spec[2] not in RUN_ACTIONS)]


def lens_specs(design: Any, uri: str, run: Any) -> list[tuple[int, str, str, list[Any]]]:
    """(offset, title, command, arguments) per lens, in document order.

    `run` is the newest run of the design (analysis.newest_run.RunInfo) or None.  Each step of it
    gets its state (the engine's run facts, `rules.step_words.step_label`), and the
    action its state calls for: answer or respond to a waiting step, retry a failed one.
    """
    specs: list[tuple[int, str, str, list[Any]]] = []
    for info in design.infos:
        if info.id is None or info.obj is None:
            continue
        at = info.obj.start
        if info.kind == TRIGGER:
            specs.append((at, START_TITLE, START_RUN, [uri]))
            if run is not None:
                specs.append((at, run_title(run), LIST_RUNS, [{"design": run.name}]))
            continue
        if info.kind not in STEP_KINDS:
            continue
        specs.append((at, FROM_HERE_TITLE, RUN_FROM_HERE, [uri, info.id]))
        fact = run.fact(info.id) if run is not None else None
        if fact is None:
            continue
        specs.append((at, step_label(fact), SHOW_STEP, [run.run_id, info.id]))
        if fact["status"] == STEP_WAITING:
            approval = fact.get("waiting_for") == "approval"
            specs.append((at, ANSWER_TITLE if approval else RESPOND_TITLE,
                          ANSWER_APPROVAL if approval else RESPOND_AGENT, [run.run_id]))
        elif fact["status"] == STEP_FAILED:
            specs.append((at, RETRY_TITLE, RUN_FROM_HERE, [uri, info.id, run.run_id]))
    return specs


def run_title(run: Any) -> str:
    """The trigger's lens on the newest run: its status and its progress (steps finished
    / steps, the one convention of `rules.run_facts.progress_of`)."""
    finished, total = progress_of(list(run.facts.values()))
    title = f"last run {run.run_id}: {run.status}"
    return f"{title} · {progress_text(finished, total)} steps finished" if total else title


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
        errors = sum(1 for f in at.analysis.findings if f.severity == "error")
        for offset, title, command, arguments in runnable_specs(lens_specs(
                at.design, at.uri, at.analysis.run), errors):
            lenses.append(types.CodeLens(
                range=convert.to_range(at.lines, offset, offset, at.encoding),
                command=types.Command(title=title, command=command, arguments=arguments)))
        return lenses
