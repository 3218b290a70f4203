"""The engine: what runs designs and keeps their files (stores, locks, seams, delivery,
runner, run from here).  The rules it applies are `hwf_lsp.rules`.

Contract 1 is `from hwf_lsp.workflow import validate_designer_graph, build_run_plan`:
both come from the rulebook, eagerly.  The runtime is imported on first use (PEP 562
`__getattr__`), so `from hwf_lsp.workflow import Runner` costs only what it uses.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from hwf_lsp.rules.plan import build_run_plan
from hwf_lsp.rules.validator import validate_designer_graph

_LAZY: dict[str, str] = {
    # name -> submodule that defines it (runtime, H2)
    "atomic_write_json": "atomic",
    "sweep_temp_files": "atomic",
    "Delivery": "delivery",
    "RunBusyError": "locks",
    "RunLock": "locks",
    "hermes_home": "paths",
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

__all__ = ["build_run_plan", "validate_designer_graph", *_LAZY]

if TYPE_CHECKING:  # type checkers and editors see the lazy names (`X as X`: re-exported)
    from .atomic import atomic_write_json as atomic_write_json
    from .atomic import sweep_temp_files as sweep_temp_files
    from .delivery import Delivery as Delivery
    from .locks import RunBusyError as RunBusyError
    from .locks import RunLock as RunLock
    from .paths import hermes_home as hermes_home
    from .rerun import prepare_rerun as prepare_rerun
    from .runner import Runner as Runner
    from .seams import AgentCancelled as AgentCancelled
    from .seams import AgentFailure as AgentFailure
    from .seams import AgentRequest as AgentRequest
    from .seams import CallableAgentSeam as CallableAgentSeam
    from .seams import CommandAgentSeam as CommandAgentSeam
    from .seams import agent_seam_from_env as agent_seam_from_env
    from .stores import DesignStore as DesignStore
    from .stores import RunStore as RunStore


def __getattr__(name: str) -> Any:
    submodule = _LAZY.get(name)
    if submodule is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{submodule}"), name)
    globals()[name] = value  # next time without __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
