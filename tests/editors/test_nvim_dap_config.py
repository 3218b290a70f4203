"""The README's nvim-dap config, checked where no nvim-dap can be installed.

nvim-dap is in none of the registries this project installs from (PyPI, npm, Debian), so
the config is documented, not run against a real nvim-dap. What is checked: Neovim 0.11
runs it as Lua, with a stand-in `dap` module (a table, as nvim-dap's is), and it
registers the `hwf` adapter as `hwf debug-adapter` on stdio and launch configurations
for JSON files with the launch arguments the adapter takes (docs/debugging.md).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from editor_support import editor, snippet, user_env
from test_neovim import NEOVIM_011

STAND_IN = 'package.loaded["dap"] = { adapters = {}, configurations = {} }\n'
REPORT = """
local dap = require("dap")
local seen = { adapter = dap.adapters.hwf, configurations = {} }
for _, c in ipairs(dap.configurations.json) do
  local copy = {}
  for k, v in pairs(c) do copy[k] = type(v) == "function" and "<function>" or v end
  table.insert(seen.configurations, copy)
end
local f = assert(io.open(os.getenv("HWF_OUT"), "w"))
f:write(vim.json.encode(seen))
f:close()
"""


def test_the_nvim_dap_config_is_lua_that_registers_the_hwf_adapter(tmp_path: Path) -> None:
    nvim = editor(NEOVIM_011, "Neovim 0.11")
    script = tmp_path / "check.lua"
    script.write_text(STAND_IN + snippet("documented", "neovim-nvim-dap") + REPORT, encoding="utf-8")
    out = tmp_path / "seen.json"
    proc = subprocess.run([nvim, "--headless", "-i", "NONE", "-u", "NONE", "-c", f"luafile {script}",
                           "-c", "qa!"], env=user_env(tmp_path, HWF_OUT=str(out)), cwd=tmp_path,
                          timeout=60, capture_output=True, text=True)
    assert out.exists(), f"Neovim did not run the config (exit {proc.returncode}): {proc.stderr}"
    seen = json.loads(out.read_text(encoding="utf-8"))
    assert seen["adapter"] == {"type": "executable", "command": "hwf", "args": ["debug-adapter"]}
    by_name = {c["name"]: c for c in seen["configurations"]}
    design = by_name["Hermes Workflow: debug this design"]
    assert (design["type"], design["request"], design["design"]) == ("hwf", "launch", "${file}")
    case = by_name["Hermes Workflow: debug a design test case"]
    assert case["testCase"] == "<function>" and case["type"] == "hwf"
