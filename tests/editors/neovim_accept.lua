-- Accepts completion items in a real Neovim (0.7 or 0.11), headless, through the user's
-- config (the README's snippet is the init.lua): for each case it sets the buffer, puts the
-- cursor there in insert mode, asks for completion the way the user does (<C-x><C-o>, the
-- omnifunc; or vim.lsp.completion.get(), 0.11's completion), waits for the popup menu,
-- selects the first item or a named one (a sole match Neovim inserts at once) and accepts it (nvim_select_popupmenu_item with
-- finish: CompleteDone and its handlers run as after <C-y>), then records the buffer and
-- the cursor. The event loop runs between steps (vim.defer_fn), as keys are typed.
-- Env: HWF_OUT (result file), HWF_CASES (a JSON file: [{lines, line, col, pick}]),
--      HWF_TRIGGER ("omnifunc", "completion", or "autotrigger": the character before the
--      cursor typed again, so vim.lsp.completion's autotrigger opens the list).
local out_path = os.getenv("HWF_OUT")
local cases = vim.fn.json_decode(table.concat(vim.fn.readfile(os.getenv("HWF_CASES")), "\n"))
local trigger = os.getenv("HWF_TRIGGER") or "omnifunc"
local bufnr = vim.api.nvim_get_current_buf()
local results = {}
local index = 0

local function keys(text)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(text, true, false, true), "n", false)
end

local function poll(ready, done, timeout_ms, expired)
  local deadline = vim.loop.now() + timeout_ms
  local function step()
    if ready() then return done() end
    if vim.loop.now() > deadline then return expired() end
    vim.defer_fn(step, 20)
  end
  step()
end

local function finish()
  local f = assert(io.open(out_path, "w"))
  f:write(vim.fn.json_encode({ version = tostring(vim.version().major) .. "." ..
    tostring(vim.version().minor), results = results }))
  f:close()
  vim.cmd("qall!")
end

local run_case

local function record(case, entry)
  entry.lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local cursor = vim.api.nvim_win_get_cursor(0)
  entry.cursor = { cursor[1] - 1, cursor[2] }
  entry.pick = case.pick
  table.insert(results, entry)
  keys("<Esc>")
  vim.defer_fn(run_case, 100)
end

run_case = function()
  index = index + 1
  local case = cases[index]
  if not case then return finish() end
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, case.lines)
  local line = case.lines[case.line + 1]
  local append = case.col >= #line and #line > 0
  vim.api.nvim_win_set_cursor(0, { case.line + 1, append and case.col - 1 or case.col })
  vim.defer_fn(function()  -- let the change reach the server (didChange is debounced)
    keys(append and "a" or "i")
    vim.defer_fn(function()
      local before = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
      local function changed()
        return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n") ~= before
      end
      if trigger == "autotrigger" then  -- the trigger character typed again: the list opens
        local row, col = unpack(vim.api.nvim_win_get_cursor(0))
        local typed = vim.api.nvim_get_current_line():sub(col, col)
        vim.api.nvim_buf_set_text(bufnr, row - 1, col - 1, row - 1, col, { "" })
        vim.api.nvim_input(typed)
      elseif trigger == "completion" then
        vim.lsp.completion.get()
      else
        keys("<C-x><C-o>")
      end
      -- autotrigger: the README's completeopt has menuone, so even one item is a menu
      poll(function() return vim.fn.pumvisible() == 1 or (trigger ~= "autotrigger" and changed()) end, function()
        if vim.fn.pumvisible() == 0 then  -- a sole match is inserted without a menu
          return vim.defer_fn(function() record(case, { labels = {}, chosen = "(the only item)" }) end,
            300)
        end
        local items = vim.fn.complete_info({ "items" }).items
        local labels, chosen = {}, nil
        for i, item in ipairs(items) do
          table.insert(labels, item.abbr)
          if chosen == nil and (case.pick == vim.NIL or case.pick == nil or item.abbr == case.pick) then
            chosen = i - 1
          end
        end
        if chosen == nil then
          return record(case, { labels = labels, error = "no such item" })
        end
        vim.api.nvim_select_popupmenu_item(chosen, true, true, {})
        vim.defer_fn(function() record(case, { labels = labels, chosen = labels[chosen + 1] }) end,
          300)
      end, 8000, function() record(case, { labels = {}, error = "no popup menu" }) end)
    end, 50)
  end, 400)
end

-- start once the server has attached and answered (its first diagnostics)
poll(function() return #vim.diagnostic.get(bufnr) > 0 end, run_case, 20000, run_case)
