"""The engine: rulebook, conditions, plan (and, appended by their owners, runtime parts).

Pure Python; never imports pygls, lsprotocol, hwf_lsp.analysis or hwf_lsp.server.
"""

from __future__ import annotations

from .conditions import ConditionError, evaluate, parse_condition
from .defects import Defect
from .numbers import whole_number
from .plan import PlanError, build_run_plan
from .validator import collect_defects, validate_designer_graph

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
]

# --- runtime (H2): stores, locks, seams, delivery, runner, run from here ---
from .atomic import atomic_write_json, sweep_temp_files  # noqa: E402
from .delivery import Delivery  # noqa: E402
from .locks import RunBusyError, RunLock  # noqa: E402
from .names import check_design_name, check_run_id, hermes_home  # noqa: E402
from .rerun import prepare_rerun  # noqa: E402
from .runner import Runner  # noqa: E402
from .seams import (  # noqa: E402
    AgentCancelled,
    AgentFailure,
    AgentRequest,
    CallableAgentSeam,
    CommandAgentSeam,
    agent_seam_from_env,
)
from .stores import DesignStore, RunStore  # noqa: E402

__all__ += [
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
