"""The rulebook and what only reads designs and run facts: pure (values in, values out;
no I/O, no threads, no process-wide state).  The engine (`workflow`), the editor's
analysis (`analysis`), `hwf` and the Hermes plugin all apply these rules."""
