"""The engine as every surface of the plugin uses it: the stores of one Hermes home, a seam, the gate.

Chat tools, the slash command and cron all go through `Workflows`, so a run
started in one place is the same file everywhere (`$HERMES_HOME/workflow-runs`),
and `hwf`, the editor and the canvas see it too. Nothing here knows about Hermes:
the surfaces pass in the home and the agent seam.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hwf_lsp.rules.vocabulary import RUN_STATUSES
from hwf_lsp.workflow.delivery import Delivery, channel_argv_from_env
from hwf_lsp.workflow.rerun import prepare_rerun
from hwf_lsp.workflow.run_summary import run_summary
from hwf_lsp.workflow.runner import Runner
from hwf_lsp.workflow.seams import AgentSeam
from hwf_lsp.workflow.stores import DesignStore, RunStore
from hwf_lsp.workflow.trust import read_model_gate

MAX_RUNS_LISTED = 200


def _mtime_iso(path: Path) -> str | None:
    try:
        seconds = path.stat().st_mtime
    except OSError:
        return None
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="milliseconds").replace(
        "+00:00", "Z")


@dataclass
class Workflows:
    """Designs and runs under `home`; agent steps go to `seam` (None: they park)."""

    home: Path
    seam: AgentSeam | None = None
    notifications: list[str] = field(default_factory=list)
    """`notification` deliveries made by the last operations, for the surface to show."""

    def __post_init__(self) -> None:
        self.home = Path(self.home)
        self.designs = DesignStore.at_home(self.home)
        self.runs = RunStore.at_home(self.home)

    # --- designs ----------------------------------------------------------

    def list_designs(self) -> list[dict[str, Any]]:
        """`[{name, nodes, updated_at}]`; an unreadable design says why instead of its size."""
        listed = []
        for name in self.designs.list():
            entry: dict[str, Any] = {"name": name, "nodes": None, "updated_at": None}
            try:  # one bad entry (a looping link, a FIFO, /dev/zero) says why, in its place
                entry["updated_at"] = _mtime_iso(self.designs.path(name))
                nodes = self.designs.load(name).get("nodes")
                entry["nodes"] = len(nodes) if isinstance(nodes, list) else None
            except FileNotFoundError:
                continue
            except ValueError as exc:
                entry["error"] = str(exc)
            listed.append(entry)
        return listed

    # --- runs -------------------------------------------------------------

    def runner(self) -> Runner:
        return Runner(
            self.runs, agent=self.seam, designs=self.designs,
            allow_model_override=read_model_gate(self.home).permits,
            delivery=Delivery(notify=self.notifications.append,
                              channel_argv=channel_argv_from_env(None)),
        )

    def run(self, name: str, from_node: str | None = None,
            base_run: str | None = None) -> tuple[dict[str, Any], list[str]]:
        """Start a run of the stored design `name` (from `from_node`), advance it; its notices."""
        design = self.designs.load(name)
        runner = self.runner()
        if from_node is None:
            if base_run is not None:
                raise ValueError("base_run only makes sense with from_node")
            return runner.start(design, name=name), []
        state, notices = prepare_rerun(self.runs, design, from_node, name=name,
                                       base_run_id=base_run)
        return runner.advance(state["run_id"]), notices

    def recent_with_unreadable(self, design: str | None = None, status: str | None = None,
                               limit: int = 20) -> tuple[list[dict[str, Any]],
                                                         list[dict[str, str]]]:
        """Runs newest first, and the run files skipped as unreadable: `[{path, reason}]`
        (a looping link, a FIFO, a corrupt file), so one bad entry hides nothing else."""
        if status is not None and status not in RUN_STATUSES:
            raise ValueError(f"unknown status {status!r}: one of {', '.join(RUN_STATUSES)}")

        def wanted(state: dict[str, Any]) -> bool:
            return ((design is None or state.get("name") == design)
                    and (status is None or state.get("status") == status))

        states, errors = self.runs.recent_with_errors(min(limit, MAX_RUNS_LISTED), where=wanted)
        return states, [{"path": str(e.path), "reason": e.message} for e in errors]

    def summary(self, state: dict[str, Any]) -> dict[str, Any]:
        """The run summary (docs/commands.md) with the engine's step facts; a run without a
        design snapshot (a canvas run) is planned by the stored design of its name."""
        design = None
        if not isinstance(state.get("design"), dict) and isinstance(state.get("name"), str):
            try:
                design = self.designs.load(state["name"])
            except (OSError, ValueError):
                design = None
        return run_summary(state, self.runs.root, design)
