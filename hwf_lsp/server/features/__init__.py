"""One module per LSP method, each with a `register(server)`.

`server.FEATURES` lists them, in the order their handlers are registered: a new feature
is a module here and one entry there.  This file imports nothing, so a feature module
importing a sibling never runs the others.
"""
