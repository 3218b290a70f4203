"""The .vsix's language server: hwf_lsp and its libraries from `bundled/libs`, run by
any Python 3.11+ (the extension starts `python -P bundled/tool/lsp_server.py`).

The bundled libraries go first on `sys.path`, so they win over other versions the
interpreter may have installed. Neither the current directory nor this script's
directory is on `sys.path` (`-P`; and the extension starts it outside the
workspace): an untrusted repository's `json.py` or `pygls/` is never imported.
"""

import os
import runpy
import sys

LIBS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "libs")

if not sys.flags.safe_path and sys.path and sys.path[0] == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]  # started without -P: this script's directory is not a library
if os.path.isdir(LIBS):
    sys.path.insert(0, LIBS)

runpy.run_module("hwf_lsp", run_name="__main__", alter_sys=True)
