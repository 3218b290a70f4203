-- Types text by hand in a real Neovim (0.7 or 0.11), headless, through the user's config
-- (the README's snippet is the init.lua): for each case it sets the buffer, waits for the
-- server's diagnostics, puts the cursor where typing starts, enters insert mode and feeds
-- one key at a time with nvim_input (the typeahead a keyboard fills: InsertCharPre, the
-- completion autotrigger and the popup menu all run as for a person), each after the
-- case's delay in ms. It never accepts an item: it records the buffer once typing is done.
-- Env: HWF_OUT (result file), HWF_CASES (a JSON file: [{file, lines, line, col, keys:
-- [[key, ms]]}]; each case's file is opened as `:edit FILE`, so the config attaches it).
local out_path = os.getenv("HWF_OUT")
local cases = vim.fn.json_decode(table.concat(vim.fn.readfile(os.getenv("HWF_CASES")), "\n"))
local bufnr
local results = {}
local index = 0

local function finish()
  local f = assert(io.open(out_path, "w"))
  f:write(vim.fn.json_encode({ version = tostring(vim.version().major) .. "." ..
    tostring(vim.version().minor), completeopt = vim.o.completeopt, results = results }))
  f:close()
  vim.cmd("qall!")
end

local run_case, start_typing

local function type_keys(case, k, on_done)
  local step = case.keys[k]
  if not step then return on_done() end
  vim.defer_fn(function()
    local key = step[1] == "<" and "<lt>" or step[1]
    vim.api.nvim_input(key)
    type_keys(case, k + 1, on_done)
  end, step[2])
end

run_case = function()
  index = index + 1
  local case = cases[index]
  if not case then return finish() end
  vim.cmd("hide edit! " .. vim.fn.fnameescape(case.file))
  bufnr = vim.api.nvim_get_current_buf()
  local deadline = vim.loop.now() + 20000
  local function attached()
    local clients = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = bufnr })
      or vim.lsp.buf_get_clients(bufnr)
    if next(clients) == nil and vim.loop.now() < deadline then
      return vim.defer_fn(attached, 50)
    end
    vim.defer_fn(function() start_typing(case) end, 1000)  -- the server has read the file
  end
  attached()
end

start_typing = function(case)
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, case.lines)
  local line = case.lines[case.line + 1]
  local append = case.col >= #line and #line > 0
  vim.api.nvim_win_set_cursor(0, { case.line + 1, append and case.col - 1 or case.col })
  vim.defer_fn(function()  -- the server has the buffer before the first key
    vim.api.nvim_input(append and "a" or "i")
    type_keys(case, 1, function()
      vim.defer_fn(function()  -- a popup menu opened by the last key may still insert
        vim.api.nvim_input("<Esc>")
        vim.defer_fn(function()
          table.insert(results, { lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false) })
          run_case()
        end, 200)
      end, 800)
    end)
  end, 500)
end

run_case()
