"""`python -m bench`: see bench/run.py."""

from __future__ import annotations

from bench.run import main

raise SystemExit(main())
