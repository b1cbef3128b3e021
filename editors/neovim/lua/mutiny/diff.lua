--- Mutant diffs: fetched from the server, shown in a scratch buffer with
--- `filetype=diff`.

local clients = require("mutiny.client")

local M = {}

--- The buffer name of the diff view; one view, reused.
M.buffer_name = "mutiny://diff"

--- Clients known to lack the `mutiny/mutants` request (older servers), by
--- client id; their diffs come from the `mutiny.showMutantDiff` command.
M.without_mutants_request = {}
local without_mutants_request = M.without_mutants_request

local METHOD_NOT_FOUND = -32601

--- Fetches the unified diffs of the named mutants: by the `mutiny/mutants`
--- request where the server has it, else by the `mutiny.showMutantDiff`
--- command (which returns them as one string).
---@param client vim.lsp.Client
---@param names string[]
---@param bufnr integer?
---@param callback fun(err: string?, diff: string?)
function M.fetch(client, names, bufnr, callback)
  local function by_command()
    clients.execute(client, "mutiny.showMutantDiff", names, bufnr, function(err, result)
      if err then
        callback(err.message)
      else
        callback(nil, type(result) == "string" and result or "")
      end
    end)
  end
  if without_mutants_request[client.id] then
    return by_command()
  end
  clients.request(client, "mutiny/mutants", { names = names }, function(err, result)
    if err and err.code == METHOD_NOT_FOUND then
      without_mutants_request[client.id] = true
      return by_command()
    elseif err then
      return callback(err.message)
    end
    local diffs = {}
    for _, mutant in ipairs(result or {}) do
      diffs[#diffs + 1] = mutant.diff
    end
    callback(nil, table.concat(diffs))
  end, bufnr)
end

--- Shows `text` in the diff view: a scratch buffer with `filetype=diff` in
--- a split (`split`: "split", "vsplit" or "tab"), reusing the view's window
--- when the current tab shows it.
---@param text string
---@param split string?
---@return integer bufnr
function M.show(text, split)
  local bufnr = vim.fn.bufnr("^" .. M.buffer_name .. "$")
  if bufnr == -1 or not vim.api.nvim_buf_is_valid(bufnr) then
    bufnr = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(bufnr, M.buffer_name)
    vim.bo[bufnr].bufhidden = "hide"
    vim.keymap.set("n", "q", "<cmd>close<cr>", { buffer = bufnr, desc = "Close the mutant diff" })
  end
  local window = vim.fn.bufwinid(bufnr)
  if window ~= -1 then
    vim.api.nvim_set_current_win(window)
  else
    if split == "tab" then
      vim.cmd("tab split")
    elseif split == "vsplit" then
      vim.cmd("vsplit")
    else
      vim.cmd("split")
    end
    vim.api.nvim_win_set_buf(0, bufnr)
  end
  local lines = vim.split(text, "\n", { plain = true })
  if lines[#lines] == "" then
    lines[#lines] = nil
  end
  vim.bo[bufnr].modifiable = true
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  vim.bo[bufnr].modifiable = false
  vim.bo[bufnr].modified = false
  vim.bo[bufnr].filetype = "diff"
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  return bufnr
end

--- Fetches the named mutants' diffs and shows them.
---@param client vim.lsp.Client
---@param names string[]
---@param bufnr integer?
---@param split string?
function M.open(client, names, bufnr, split)
  if #names == 0 then
    vim.notify("mutiny: no mutant to show", vim.log.levels.INFO)
    return
  end
  M.fetch(client, names, bufnr, function(err, text)
    if err then
      vim.notify("mutiny: could not get the diff: " .. err, vim.log.levels.ERROR)
    elseif text == nil or text == "" then
      vim.notify(
        "mutiny: the server no longer knows these mutants (save the file to test it again)",
        vim.log.levels.WARN
      )
    else
      M.show(text, split)
    end
  end)
end

--- Whether a `window/showDocument` URI is one of the diff files the server
--- writes for `mutiny.showMutantDiff` (this plugin shows the diff itself).
---@param uri string
---@return boolean
function M.is_diff_file(uri)
  return uri:match("/target/mutiny/diff/[^/]*%.diff$") ~= nil
end

return M
