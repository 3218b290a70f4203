"""Hypothesis budgets for the whole suite: small under `make test` (CI), large under
`make soak` (HWF_SOAK=1). A property test that names no `max_examples` of its own runs
the profile's number; the slowest ones do so on purpose."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=100, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("soak", max_examples=2000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("soak" if os.environ.get("HWF_SOAK") == "1" else "ci")
