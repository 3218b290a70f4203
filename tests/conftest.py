"""tests/hermes needs the real Hermes Agent, which lives in its own venv (`make test-hermes`)."""

import importlib.util

collect_ignore = [] if importlib.util.find_spec("hermes_cli") else ["hermes"]
