"""The run summary of docs/commands.md; built in the engine (`workflow/run_summary.py`)
so the Hermes plugin shares it without importing the server."""

from hwf_lsp.workflow.run_summary import run_summary

__all__ = ["run_summary"]
