--- What mutiny is doing, for status lines: fed by the LSP work-done
--- progress the server sends (`$/progress`, seen through the `LspProgress`
--- autocmd) and by its `mutiny/status` notification.

local M = {}

---@class mutiny.Status
---@field running boolean
---@field paused boolean? the server is paused (`mutiny.pause`) until it resumes
---@field message string  e.g. `4/9 mutants · src/lib.rs`, or the last summary
---@field done integer?
---@field total integer?

--- By client id.
---@type table<integer, mutiny.Status>
M.by_client = {}

local function redraw()
  -- Status lines that show `require("mutiny").status()` follow along.
  pcall(vim.cmd.redrawstatus)
  vim.api.nvim_exec_autocmds("User", { pattern = "MutinyStatus", modeline = false })
end

--- `LspProgress` of a mutiny client.
---@param client_id integer
---@param value table the work-done progress value (begin, report or end)
function M.on_progress(client_id, value)
  if type(value) ~= "table" then
    return
  end
  local status = M.by_client[client_id] or { running = false, message = "" }
  status.running = value.kind ~= "end"
  status.message = value.message or status.message
  local done, total = (value.message or ""):match("^(%d+)/(%d+) mutants")
  if done then
    status.done, status.total = tonumber(done), tonumber(total)
  end
  M.by_client[client_id] = status
  redraw()
end

--- The `mutiny/status` notification: `{state, done, total, title}`.
---@param client_id integer
---@param params table
function M.on_status(client_id, params)
  if type(params) ~= "table" then
    return
  end
  local status = M.by_client[client_id] or { running = false, message = "" }
  status.running = params.state == "running"
  status.paused = params.state == "paused"
  status.done, status.total = params.done, params.total
  if status.running then
    status.message = ("%d/%d mutants · %s"):format(params.done or 0, params.total or 0, params.title or "")
  end
  M.by_client[client_id] = status
  redraw()
end

function M.forget(client_id)
  M.by_client[client_id] = nil
end

--- Whether the server of this client said it is paused.
---@param client_id integer
---@return boolean
function M.is_paused(client_id)
  local status = M.by_client[client_id]
  return status ~= nil and status.paused == true
end

--- `mutiny: 4/9 mutants · src/lib.rs` while a run is in flight,
--- `mutiny: paused` while paused, else "".
---@return string
function M.status()
  local parts = {}
  for _, status in pairs(M.by_client) do
    if status.paused then
      -- A run cancelled by the pause may still report until it ends.
      parts[#parts + 1] = "paused"
    elseif status.running and status.message ~= "" then
      parts[#parts + 1] = status.message
    end
  end
  if #parts == 0 then
    return ""
  end
  table.sort(parts)
  return "mutiny: " .. table.concat(parts, ", ")
end

return M
