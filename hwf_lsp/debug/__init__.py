"""The workflow debugger: `hwf debug-adapter`, the Debug Adapter Protocol over stdio.

It drives the same `Runner` and run files as `hwf run`; a debug run is an ordinary run,
marked with a `debug` key (docs/debugging.md).  One module per job:

| module | job |
| --- | --- |
| `dap_framing.py` | `Content-Length` frames in and out; a malformed frame is skipped, never fatal. |
| `launch_args.py` | the launch arguments checked into a `LaunchConfig`, or one clear error. |
| `node_lines.py` | design text -> which node's object holds which lines. |
| `breakpoints.py` | DAP source breakpoints -> verified node breakpoints (condition, logpoint). |
| `values.py` | values named as conditions name them (`out.node.path`), logpoint text, typed values. |
| `views.py` | what the debugger shows: a node's input, the stack, JSON as DAP variables. |
| `repl.py` | the debug console's commands (`answer`, `respond`, `out.node.path`, `help`). |
| `run_setup.py` | the debug run's runner (agents and deliveries as `hwf run`, or a test case's mocks) and its run file (new, or run from here for `from`/`replay`). |
| `pins.py` | `setVariable`: an output pinned for the rest of the run, recorded in `debug.edits`. |
| `driver.py` | the run on a worker thread: the Runner's `before_step` hook, stops, parks. |
| `session.py` | the request handlers and the session's state. |
| `adapter.py` | `hwf debug-adapter`: the read loop on stdin. |
"""
