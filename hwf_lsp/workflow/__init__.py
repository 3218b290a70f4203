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
