"""A debug run's runner and its run file, from the launch configuration.

Who performs steps is decided as `hwf run` decides it (`agent_seam_from_env`,
`channel_argv_from_env`), or by a design test case's mocks (`design_test_run`'s
`ReplayedAgent` and `RecordingDelivery`: nothing else is called).  The run is created as
`hwf run` creates it, or as run from here (`prepare_rerun`) for `from` and `replay`, and
marked with the `debug` key.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from hwf_lsp.debug.launch_args import LaunchConfig, LaunchError
from hwf_lsp.debug.pins import DEBUG_KEY
from hwf_lsp.rules.run_facts import failed_step
from hwf_lsp.workflow.delivery import DELIVERY_ENV, Delivery, channel_argv_from_env
from hwf_lsp.workflow.design_test_run import RecordingDelivery, ReplayedAgent
from hwf_lsp.workflow.interrupts import Interrupt
from hwf_lsp.workflow.rerun import prepare_rerun
from hwf_lsp.workflow.runner import Runner
from hwf_lsp.workflow.seams import CallableAgentSeam, agent_seam_from_env
from hwf_lsp.workflow.stores import DESIGNS_DIRNAME, RUNS_DIRNAME, DesignStore, RunStore
from hwf_lsp.workflow.trust import read_model_gate


def make_runner(config: LaunchConfig, home: Path, *, interrupt: Interrupt,
                before_step: Callable[[dict[str, Any], dict[str, Any]], None],
                on_event: Callable[[dict[str, Any]], None],
                notify: Callable[[str], None]) -> Runner:
    """The runner of a debug run in `home`; LaunchError for an unusable command."""
    if config.case is not None:
        agent: Any = CallableAgentSeam(ReplayedAgent(config.case.agents))
        delivery: Delivery = RecordingDelivery(config.case.failing_deliveries)
    else:
        try:
            agent = agent_seam_from_env(config.agent_command, hermes_home=str(home))
        except ValueError as exc:
            raise LaunchError("agentCommand", f"{exc} (or $HWF_AGENT_COMMAND)") from None
        try:
            argv = channel_argv_from_env(config.delivery_command)
        except ValueError as exc:
            raise LaunchError("deliveryCommand", f"{exc} (or ${DELIVERY_ENV})") from None
        delivery = Delivery(notify=notify, channel_argv=argv)
    return Runner(RunStore(home / RUNS_DIRNAME), agent=agent, delivery=delivery,
                  allow_model_override=read_model_gate(home).permits,
                  designs=DesignStore(home / DESIGNS_DIRNAME), interrupt=interrupt,
                  before_step=before_step, on_event=on_event)


def create_debug_run(runner: Runner, config: LaunchConfig) -> tuple[dict[str, Any], list[str]]:
    """The new (not yet advanced) run, marked as a debug run, and notices for the user."""
    runs = runner.runs
    notices: list[str] = []
    if config.replay or config.from_node:
        from_node = config.from_node or _failed_step_of(runs, config.replay)
        try:
            state, notices = prepare_rerun(runs, config.design, from_node, name=config.name,
                                           base_run_id=config.replay)
        except FileNotFoundError:
            raise LaunchError("replay", f"no run {config.replay} in {runs.root}") from None
        except ValueError as exc:
            raise LaunchError("replay" if config.replay else "from", str(exc)) from None
    else:
        try:
            state = runner.create(config.design, name=config.name)
        except (OSError, ValueError) as exc:
            raise LaunchError("design", f"cannot start a run: {exc}") from None
    state[DEBUG_KEY] = config.marker()
    runs.save(state)
    return state, notices


def _failed_step_of(runs: RunStore, run_id: str | None) -> str:
    """Where a replay without `from` starts: the step the replayed run failed at."""
    try:
        base = runs.load(str(run_id))
    except FileNotFoundError:
        raise LaunchError("replay", f"no run {run_id} in {runs.root}") from None
    except ValueError as exc:
        raise LaunchError("replay", str(exc)) from None
    step = failed_step(base)
    if step is None:
        raise LaunchError("from", f"run {run_id} did not fail ({base.get('status')}): "
                          "say from which node to replay it")
    return step
