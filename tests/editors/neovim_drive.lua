-- Drives hwf-lsp from a real Neovim (0.7 or 0.11), headless, through the user's config:
-- the README's snippet is the init.lua and the design is opened as a user opens it
-- (`nvim FILE`), so the snippet alone starts the server. This script only waits, asks
-- and writes what came back as JSON.
-- Env: HWF_OUT (result file); optional, each "line,character" 0-based:
--      HWF_COMPLETE_AT, HWF_HOVER_AT, HWF_RENAME_AT (with HWF_RENAME_TO, the new name),
--      HWF_OTHER (a plain JSON file the config must leave alone), and HWF_FIX_ALL=1
--      (run `vim.lsp.buf.code_action` for `source.fixAll`, as a user maps it).
local out_path = os.getenv("HWF_OUT")
local bufnr = vim.api.nvim_get_current_buf()
local uri = vim.uri_from_bufnr(bufnr)

local function position(spec)
  local line, character = spec:match("^(%d+),(%d+)$")
  return { line = tonumber(line), character = tonumber(character) }
end

local function client_names(buf)
  local clients = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = buf })
    or vim.lsp.buf_get_clients(buf)  -- before 0.10
  local names = {}
  for _, client in pairs(clients) do table.insert(names, client.name) end
  return names
end

local function request(method, spec)
  local params = { textDocument = { uri = uri }, position = position(spec) }
  local results = {}
  for _, resp in pairs(vim.lsp.buf_request_sync(bufnr, method, params, 10000) or {}) do
    if resp.result then table.insert(results, resp.result) end
  end
  return results
end

local v = vim.version()
local result = {
  version = string.format("%d.%d.%d", v.major, v.minor, v.patch),
  diagnostics = {}, completion = {}, hover = {},
}
result.waited_ok = vim.wait(20000, function() return #vim.diagnostic.get(bufnr) > 0 end, 50)
result.clients = client_names(bufnr)
result.omnifunc = vim.api.nvim_buf_get_option(bufnr, "omnifunc")
for _, d in ipairs(vim.diagnostic.get(bufnr)) do
  table.insert(result.diagnostics, {
    line = d.lnum, character = d.col, end_line = d.end_lnum, end_character = d.end_col,
    severity = d.severity, message = d.message, code = d.code, source = d.source,
  })
end

local complete_at = os.getenv("HWF_COMPLETE_AT")
if complete_at then
  for _, list in ipairs(request("textDocument/completion", complete_at)) do
    for _, item in ipairs(list.items or list) do table.insert(result.completion, item.label) end
  end
end
local hover_at = os.getenv("HWF_HOVER_AT")
if hover_at then
  for _, hover in ipairs(request("textDocument/hover", hover_at)) do
    table.insert(result.hover, hover.contents.value or hover.contents)
  end
end

local rename_at = os.getenv("HWF_RENAME_AT")
if rename_at then
  local at = position(rename_at)
  local before = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
  vim.api.nvim_win_set_cursor(0, { at.line + 1, at.character })
  vim.lsp.buf.rename(os.getenv("HWF_RENAME_TO"))
  vim.wait(10000, function()
    return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n") ~= before
  end, 50)
  result.renamed = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
end

if os.getenv("HWF_FIX_ALL") == "1" then
  -- the one action is chosen as a user would in the menu (0.7 has no `apply`)
  vim.ui.select = function(items, _, on_choice) on_choice(items[1], 1) end
  local before = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
  local found = #vim.diagnostic.get(bufnr)
  vim.lsp.buf.code_action({ context = { only = { "source.fixAll" }, diagnostics = {} }, apply = true })
  vim.wait(10000, function()
    return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n") ~= before
  end, 50)
  result.fixed = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  vim.wait(10000, function() return #vim.diagnostic.get(bufnr) < found end, 50)  -- rechecked
  result.diagnostics_after = #vim.diagnostic.get(bufnr)
end

local other = os.getenv("HWF_OTHER")
if other then
  vim.cmd("hide edit " .. vim.fn.fnameescape(other))
  vim.wait(500)
  result.other_clients = client_names(vim.api.nvim_get_current_buf())
end

local f = assert(io.open(out_path, "w"))
f:write(vim.fn.json_encode(result))
f:close()
vim.cmd("qall!")
