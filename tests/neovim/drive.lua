-- Drives hwf-lsp from a real Neovim (0.7+), headless: open a design, wait for
-- diagnostics, ask for completion and hover, write what came back as JSON.
-- Env: HWF_PYTHON (interpreter with hwf_lsp), HWF_DESIGN (file), HWF_OUT (result file),
--      HWF_COMPLETE_AT ("line,character" 0-based, optional).
local python = os.getenv("HWF_PYTHON")
local design = os.getenv("HWF_DESIGN")
local out_path = os.getenv("HWF_OUT")
local complete_at = os.getenv("HWF_COMPLETE_AT")

local function finish(result)
  local f = assert(io.open(out_path, "w"))
  f:write(vim.fn.json_encode(result))
  f:close()
  vim.cmd("qall!")
end

vim.cmd("edit " .. vim.fn.fnameescape(design))
local bufnr = vim.api.nvim_get_current_buf()
local client_id = vim.lsp.start_client({
  name = "hwf-lsp",
  cmd = { python, "-m", "hwf_lsp" },
  root_dir = vim.fn.fnamemodify(design, ":h"),
})
vim.lsp.buf_attach_client(bufnr, client_id)

local result = { diagnostics = {}, completion = {}, hover = nil }
local ok = vim.wait(20000, function()
  return #vim.diagnostic.get(bufnr) > 0
end, 50)
result.waited_ok = ok
for _, d in ipairs(vim.diagnostic.get(bufnr)) do
  table.insert(result.diagnostics, {
    line = d.lnum, character = d.col, end_line = d.end_lnum, end_character = d.end_col,
    severity = d.severity, message = d.message, code = d.code, source = d.source,
  })
end

if complete_at then
  local line, character = complete_at:match("(%d+),(%d+)")
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = tonumber(line), character = tonumber(character) },
  }
  local responses = vim.lsp.buf_request_sync(bufnr, "textDocument/completion", params, 10000)
  for _, resp in pairs(responses or {}) do
    local items = resp.result and (resp.result.items or resp.result) or {}
    for _, item in ipairs(items) do table.insert(result.completion, item.label) end
  end
  local hovers = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", params, 10000)
  for _, resp in pairs(hovers or {}) do
    if resp.result then result.hover = resp.result.contents end
  end
end
finish(result)
