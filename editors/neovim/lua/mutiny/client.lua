--- The mutiny language-server clients, and requests to them that work the
--- same on Neovim 0.10 (`client.request`) and 0.11+ (`client:request`).

local M = {}

M.name = "mutiny"

local has_011 = vim.fn.has("nvim-0.11") == 1

--- The mutiny clients, of one buffer when `bufnr` is given.
---@param bufnr integer?
---@return vim.lsp.Client[]
function M.get(bufnr)
  return vim.lsp.get_clients({ name = M.name, bufnr = bufnr })
end

--- The mutiny client of a buffer, else the only running one.
---@param bufnr integer
---@return vim.lsp.Client?
function M.for_buffer(bufnr)
  local attached = M.get(bufnr)
  if attached[1] then
    return attached[1]
  end
  local all = M.get()
  if #all == 1 then
    return all[1]
  end
  return nil
end

---@param client vim.lsp.Client
---@param method string
---@param params table?
---@param handler fun(err: lsp.ResponseError?, result: any)
---@param bufnr integer?
function M.request(client, method, params, handler, bufnr)
  local function on_result(err, result)
    handler(err, result)
  end
  if has_011 then
    return client:request(method, params, on_result, bufnr)
  end
  return client.request(method, params, on_result, bufnr)
end

---@param client vim.lsp.Client
---@param method string
---@param params table?
function M.notify(client, method, params)
  if has_011 then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

--- Runs a server command (`workspace/executeCommand`).
---@param client vim.lsp.Client
---@param command string
---@param arguments any[]?
---@param bufnr integer?
---@param handler fun(err: lsp.ResponseError?, result: any)?
function M.execute(client, command, arguments, bufnr, handler)
  M.request(client, "workspace/executeCommand", {
    command = command,
    arguments = arguments,
  }, function(err, result)
    if handler then
      handler(err, result)
    elseif err then
      vim.notify(("mutiny: %s failed: %s"):format(command, err.message), vim.log.levels.ERROR)
    end
  end, bufnr)
end

return M
