--- Where a Rust file's Cargo workspace is: the root mutiny is started in.

local M = {}

--- Whether a manifest declares a workspace: a `[workspace]` table, or one
--- of its sub-tables (`[workspace.dependencies]` creates it too).
---@param manifest string path of a Cargo.toml
---@return boolean
local function declares_workspace(manifest)
  local file = io.open(manifest, "r")
  if not file then
    return false
  end
  for line in file:lines() do
    if line:match("^%s*%[workspace%s*[%]%.]") then
      file:close()
      return true
    end
  end
  file:close()
  return false
end

--- The Cargo workspace root of `path` (a file or directory): the outermost
--- directory above it whose Cargo.toml declares `[workspace]`, else the
--- nearest directory with a Cargo.toml, else nil.
---@param path string
---@return string?
function M.root_of(path)
  if path == "" then
    return nil
  end
  path = vim.fs.normalize(vim.fn.fnamemodify(path, ":p"))
  local nearest, outermost_workspace
  local start = vim.fn.isdirectory(path) == 1 and path or vim.fs.dirname(path)
  local dirs = { start }
  for dir in vim.fs.parents(start) do
    dirs[#dirs + 1] = dir
  end
  for _, dir in ipairs(dirs) do
    local manifest = vim.fs.joinpath(dir, "Cargo.toml")
    if vim.uv.fs_stat(manifest) then
      nearest = nearest or dir
      if declares_workspace(manifest) then
        outermost_workspace = dir
      end
    end
  end
  return outermost_workspace or nearest
end

--- The workspace root of a buffer's file, or nil when it has none (an
--- unnamed buffer, or a file outside any Cargo package).
---@param bufnr integer
---@return string?
function M.root_of_buffer(bufnr)
  return M.root_of(vim.api.nvim_buf_get_name(bufnr))
end

return M
