"""Fixtures for the CLI tests (helpers live in hwf_cli_helpers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hwf_cli_helpers import Hwf


@pytest.fixture
def hwf(tmp_path: Path) -> Hwf:
    return Hwf(tmp_path / "hermes")
