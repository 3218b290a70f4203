"""Builders shared by every test directory (`pythonpath = ["tests"]` in pyproject.toml)."""
