"""`python -m hwf_lsp.cli` = `hwf`."""

import sys

from hwf_lsp.cli import main

sys.exit(main())
