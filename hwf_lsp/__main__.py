"""`python -m hwf_lsp`: the language server (same as `hwf-lsp`)."""

from __future__ import annotations

from hwf_lsp.server.main import main

raise SystemExit(main())
