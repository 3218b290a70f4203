"""Benchmarks of hwf-lsp side by side with the floor (bare pygls) and the peer (JSON schema LS).

Run with `make bench` (or `python -m bench`); results land in bench/results/.
"""
