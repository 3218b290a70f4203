"""Which Hermes home a call works on."""

from __future__ import annotations

from pathlib import Path


def current_home() -> Path:
    """The Hermes home of this call: Hermes' own resolution (profiles included) when inside it."""
    try:
        from hermes_constants import get_hermes_home
    except ImportError:
        from hwf_lsp.workflow.paths import hermes_home

        return hermes_home()
    return Path(get_hermes_home())
