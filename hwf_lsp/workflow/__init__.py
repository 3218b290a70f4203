"""The engine: rulebook, conditions, plan (eager), and the runtime parts (lazy).

Pure Python; never imports pygls, lsprotocol, hwf_lsp.analysis or hwf_lsp.server.

The runtime (stores, locks, seams, delivery, runner, run from here) is imported on
first use (PEP 562 `__getattr__`): the language server and `hwf check` only need
the rulebook, and importing the runner costs them start-up time for nothing.
`from hwf_lsp.workflow import Runner` works as before.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .conditions import ConditionError, evaluate, parse_condition
from .defects import Defect
from .numbers import whole_number
from .plan import PlanError, build_run_plan
from .validator import collect_defects, validate_designer_graph

_LAZY: dict[str, str] = {
    # name -> submodule that defines it (runtime, H2)
    "atomic_write_json": "atomic",
    "sweep_temp_files": "atomic",
    "Delivery": "delivery",
    "RunBusyError": "locks",
    "RunLock": "locks",
    "check_design_name": "names",
    "check_run_id": "names",
    "hermes_home": "names",
    "prepare_rerun": "rerun",
    "Runner": "runner",
    "AgentCancelled": "seams",
    "AgentFailure": "seams",
    "AgentRequest": "seams",
    "CallableAgentSeam": "seams",
    "CommandAgentSeam": "seams",
    "agent_seam_from_env": "seams",
    "DesignStore": "stores",
    "RunStore": "stores",
}

__all__ = [
    "ConditionError",
    "Defect",
    "PlanError",
    "build_run_plan",
    "collect_defects",
    "evaluate",
    "parse_condition",
    "validate_designer_graph",
    "whole_number",
    "AgentCancelled",
    "AgentFailure",
    "AgentRequest",
    "CallableAgentSeam",
    "CommandAgentSeam",
    "Delivery",
    "DesignStore",
    "RunBusyError",
    "RunLock",
    "RunStore",
    "Runner",
    "agent_seam_from_env",
    "atomic_write_json",
    "check_design_name",
    "check_run_id",
    "hermes_home",
    "prepare_rerun",
    "sweep_temp_files",
]

if TYPE_CHECKING:  # for type checkers and editors: the lazy names, eagerly
    from .atomic import atomic_write_json, sweep_temp_files
    from .delivery import Delivery
    from .locks import RunBusyError, RunLock
    from .names import check_design_name, check_run_id, hermes_home
    from .rerun import prepare_rerun
    from .runner import Runner
    from .seams import (
        AgentCancelled,
        AgentFailure,
        AgentRequest,
        CallableAgentSeam,
        CommandAgentSeam,
        agent_seam_from_env,
    )
    from .stores import DesignStore, RunStore


def __getattr__(name: str) -> Any:
    submodule = _LAZY.get(name)
    if submodule is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{submodule}"), name)
    globals()[name] = value  # next time without __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
