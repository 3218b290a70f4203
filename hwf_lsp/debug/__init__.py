"""The workflow debugger: `hwf debug-adapter`, the Debug Adapter Protocol over stdio.

It drives the same `Runner` and run files as `hwf run`; a debug run is an ordinary run,
marked with a `debug` key (docs/debugging.md).  Its modules, one job each, are
listed in ARCHITECTURE.md's code map.
"""
