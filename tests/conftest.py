"""Suite-wide settings.

- Hypothesis budgets: small under `make test` (CI), large under `make soak` (HWF_SOAK=1).
  A property test that names no `max_examples` of its own runs the profile's number; the
  slowest ones do so on purpose.
- tests/hermes needs the real Hermes Agent, which lives in its own venv (`make test-hermes`).
"""

from __future__ import annotations

import importlib.util
import os

collect_ignore = [] if importlib.util.find_spec("hermes_cli") else ["hermes"]

if importlib.util.find_spec("hypothesis"):
    from hypothesis import HealthCheck, settings

    settings.register_profile("ci", max_examples=100, deadline=None,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile("soak", max_examples=2000, deadline=None,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("soak" if os.environ.get("HWF_SOAK") == "1" else "ci")
