"""hwf-lsp: the Hermes Workflow engine, `hwf` CLI and language server."""

__version__ = "0.1.0"
