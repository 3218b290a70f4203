"""The engine: what runs designs and keeps their files (stores, locks, seams, delivery,
runner, run from here).  The rules it applies are `hwf_lsp.rules`.

Contract 1 is `from hwf_lsp.workflow import validate_designer_graph, build_run_plan`:
both come from the rulebook, and importing the package loads nothing else.  The runtime
is imported from its own module (`from hwf_lsp.workflow.runner import Runner`).
"""

from __future__ import annotations

from hwf_lsp.rules.plan import build_run_plan
from hwf_lsp.rules.validator import validate_designer_graph

__all__ = ["build_run_plan", "validate_designer_graph"]
