"""Generators of the files derived from the rulebook: the design format (docs/design-format.md)
and the JSON Schemas (schema/).  Each is `python -m hwf_lsp.generators.<module>`, printing
the file; tests/test_generated_files.py fails when a committed file is stale."""

import json
from typing import Any


def json_file(value: Any) -> str:
    """A generated JSON file's exact text: 2-space indent, UTF-8, a final newline."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"
