"""The JSON text layer: tolerant parsing with positions, resync after an error, offsets to
lines and characters, tokens, layout and minimal edits.  Knows nothing of designs."""
