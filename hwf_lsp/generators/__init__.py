"""Generators of the files derived from the rulebook: the design format (docs/design-format.md)
and the JSON Schemas (schema/).  Each is `python -m hwf_lsp.generators.<module>`, printing
the file; tests/test_generated_files.py fails when a committed file is stale."""
