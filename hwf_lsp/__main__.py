"""`python -m hwf_lsp`: the language server (same as `hwf-lsp`).

Python put the current directory first on `sys.path` (unless `-P`/`PYTHONSAFEPATH`);
started inside an untrusted checkout, everything imported below would come from its
`argparse.py`, `logging/`, `pygls/`… So that entry goes first. This is defence in
depth only: `hwf_lsp` itself was found before this line ran, so the safe invocations
are `hwf-lsp` or `python -P -m hwf_lsp` (README, "Other editors").
"""

from __future__ import annotations

import os
import sys

if not sys.flags.safe_path and sys.path and sys.path[0] in ("", os.getcwd()):
    del sys.path[0]

from hwf_lsp.server.main import main  # after the sys.path fix, on purpose

raise SystemExit(main())
