--- mutiny for Neovim: starts `mutiny lsp` for Rust buffers (rooted at their
--- Cargo workspace), shows mutant diffs, keeps code lenses fresh, and adds
--- the :Mutiny* commands. Diagnostics, hover, code actions and progress are
--- Neovim's own LSP features.

local clients = require("mutiny.client")
local diff = require("mutiny.diff")
local progress = require("mutiny.progress")
local workspace = require("mutiny.workspace")

local M = {}

---@class mutiny.Options
---@field cmd string[]? the server command (default `{ "mutiny", "lsp" }`)
---@field settings table? server settings (onSave, onOpen, jobs, timeoutMultiplier, testTool, additionalCargoArgs, scope, analysis)
---@field filetypes string[]? (default `{ "rust" }`)
---@field codelens boolean? refresh code lenses on attach and when diagnostics change (default true)
---@field diff_split "split"|"vsplit"|"tab"? where the diff view opens (default "split")
---@field on_attach fun(client: vim.lsp.Client, bufnr: integer)?
---@field capabilities table? client capabilities, merged into Neovim's

---@type mutiny.Options
M.defaults = {
  cmd = { "mutiny", "lsp" },
  settings = {},
  filetypes = { "rust" },
  codelens = true,
  diff_split = "split",
}

--- The options in effect (the defaults until `setup` is called).
---@type mutiny.Options
M.options = vim.deepcopy(M.defaults)

--- Whether `setup` has run.
M.did_setup = false

local has_011 = vim.fn.has("nvim-0.11") == 1

--- An empty Lua table encodes as a JSON array; settings must be an object.
local function as_object(tbl)
  if tbl == nil or next(tbl) == nil then
    return vim.empty_dict()
  end
  return tbl
end

--- Handlers for what the server sends beyond Neovim's defaults.
local handlers = {
  ["mutiny/status"] = function(_, params, ctx)
    progress.on_status(ctx.client_id, params)
  end,
  -- `mutiny.showMutantDiff` also writes the diff to target/mutiny/diff/ and
  -- asks the editor to open it; this plugin shows the diff itself.
  ["window/showDocument"] = function(err, params, ctx, config)
    if params and params.uri and diff.is_diff_file(params.uri) then
      return { success = false }
    end
    return vim.lsp.handlers["window/showDocument"](err, params, ctx, config)
  end,
}

--- The client configuration shared by 0.10 and 0.11+.
local function client_config()
  local options = M.options
  local settings = as_object(options.settings)
  local capabilities = vim.lsp.protocol.make_client_capabilities()
  if options.capabilities then
    capabilities = vim.tbl_deep_extend("force", capabilities, options.capabilities)
  end
  return {
    name = clients.name,
    cmd = options.cmd,
    filetypes = options.filetypes,
    -- Read at start (initializationOptions) and sent again as
    -- workspace/didChangeConfiguration (Neovim does that with `settings`).
    init_options = settings,
    settings = next(settings) and { mutiny = settings } or vim.empty_dict(),
    capabilities = capabilities,
    handlers = handlers,
    on_attach = options.on_attach,
  }
end

--- The client-side command of the server's code lenses and code actions.
---@param command lsp.Command
---@param ctx table
local function show_mutant_diff(command, ctx)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  if not client then
    return
  end
  local names = {}
  for _, argument in ipairs(command.arguments or {}) do
    if type(argument) == "string" then
      names[#names + 1] = argument
    elseif type(argument) == "table" then
      vim.list_extend(names, argument)
    end
  end
  diff.open(client, names, ctx.bufnr, M.options.diff_split)
end

-- Code lens refreshes coalesce: diagnostics change once per mutant found,
-- and Neovim drops a refresh while one is in flight for the buffer.
local pending_refresh = {}

local function refresh_codelens(bufnr)
  if not M.options.codelens or pending_refresh[bufnr] then
    return
  end
  pending_refresh[bufnr] = true
  vim.defer_fn(function()
    pending_refresh[bufnr] = nil
    if vim.api.nvim_buf_is_valid(bufnr) and clients.get(bufnr)[1] then
      vim.lsp.codelens.refresh({ bufnr = bufnr })
    end
  end, 150)
end

local function create_autocmds()
  local group = vim.api.nvim_create_augroup("mutiny", { clear = true })
  vim.api.nvim_create_autocmd("LspAttach", {
    group = group,
    callback = function(args)
      local client = vim.lsp.get_client_by_id(args.data.client_id)
      if client and client.name == clients.name then
        refresh_codelens(args.buf)
      end
    end,
  })
  vim.api.nvim_create_autocmd("DiagnosticChanged", {
    group = group,
    callback = function(args)
      refresh_codelens(args.buf)
    end,
  })
  vim.api.nvim_create_autocmd("LspProgress", {
    group = group,
    callback = function(args)
      local client = vim.lsp.get_client_by_id(args.data.client_id)
      if not client or client.name ~= clients.name then
        return
      end
      progress.on_progress(client.id, args.data.params.value)
      -- The last diagnostics of a run may land while a refresh is in flight.
      if args.data.params.value.kind == "end" then
        for _, bufnr in ipairs(vim.lsp.get_buffers_by_client_id(client.id)) do
          refresh_codelens(bufnr)
        end
      end
    end,
  })
  vim.api.nvim_create_autocmd("LspDetach", {
    group = group,
    callback = function(args)
      local client = vim.lsp.get_client_by_id(args.data.client_id)
      if client and client.name == clients.name then
        pcall(vim.lsp.codelens.clear, client.id, args.buf)
        progress.forget(client.id)
      end
    end,
  })
  if not has_011 then
    -- Neovim 0.10: start (or reuse) the client from a FileType autocmd.
    vim.api.nvim_create_autocmd("FileType", {
      group = group,
      pattern = M.options.filetypes,
      callback = function(args)
        M.start(args.buf)
      end,
    })
  end
end

--- Starts (or reuses) the client for a buffer on Neovim 0.10; on 0.11+
--- `vim.lsp.enable` does this.
---@param bufnr integer
function M.start(bufnr)
  if vim.bo[bufnr].buftype ~= "" then
    return
  end
  local root = workspace.root_of_buffer(bufnr)
  if not root then
    return
  end
  local config = client_config()
  config.root_dir = root
  config.workspace_folders = { { uri = vim.uri_from_fname(root), name = root } }
  vim.lsp.start(config, { bufnr = bufnr })
end

--- Neovim 0.11+: the `vim.lsp.config` of mutiny, from the options. It is
--- replaced, not merged, so that settings dropped since the last call go.
local function register_config()
  local config = client_config()
  config.name = nil
  config.root_dir = function(bufnr, on_dir)
    local root = workspace.root_of_buffer(bufnr)
    if root then
      on_dir(root)
    end
  end
  vim.lsp.config[clients.name] = config
end

--- Configures and enables the server. Options: see `mutiny.Options`.
---@param opts mutiny.Options?
function M.setup(opts)
  -- Lists (cmd, filetypes) replace the defaults; tables merge.
  M.options = vim.tbl_deep_extend("force", vim.deepcopy(M.defaults), opts or {})
  M.did_setup = true
  vim.lsp.commands["mutiny.showMutantDiff"] = show_mutant_diff
  require("mutiny.commands").create()
  create_autocmds()
  if has_011 then
    register_config()
    vim.lsp.enable(clients.name)
  else
    for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(bufnr) and vim.tbl_contains(M.options.filetypes, vim.bo[bufnr].filetype) then
        M.start(bufnr)
      end
    end
  end
end

--- Replaces the server settings: sends them to the running servers
--- (`workspace/didChangeConfiguration`) and uses them for new ones.
---@param settings table
function M.configure(settings)
  M.options.settings = settings or {}
  if has_011 and M.did_setup then
    register_config()
  end
  local object = as_object(M.options.settings)
  for _, client in ipairs(clients.get()) do
    client.settings = { mutiny = object }
    clients.notify(client, "workspace/didChangeConfiguration", { settings = { mutiny = object } })
  end
end

--- The mutiny client of the current buffer, or nil with a message.
---@param bufnr integer
---@return vim.lsp.Client?
local function client_or_warn(bufnr)
  local client = clients.for_buffer(bufnr)
  if not client then
    vim.notify("mutiny: the language server is not running for this buffer", vim.log.levels.WARN)
  end
  return client
end

--- Tests the current file's mutants now (`mutiny.testFile`).
---@param bufnr integer?
function M.test_file(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  local client = client_or_warn(bufnr)
  if client then
    clients.execute(client, "mutiny.testFile", { vim.uri_from_bufnr(bufnr) }, bufnr)
  end
end

--- Tests every source file's mutants (`mutiny.testWorkspace`).
function M.test_workspace()
  local client = client_or_warn(vim.api.nvim_get_current_buf())
  if client then
    clients.execute(client, "mutiny.testWorkspace", {})
  end
end

--- Runs a server command without arguments on every mutiny server.
---@param command string
local function execute_everywhere(command)
  local running = clients.get()
  if #running == 0 then
    vim.notify("mutiny: the language server is not running", vim.log.levels.WARN)
  end
  for _, client in ipairs(running) do
    clients.execute(client, command, {})
  end
end

--- Stops every queued and running test of every mutiny server.
function M.cancel()
  execute_everywhere("mutiny.cancel")
end

--- Pauses every mutiny server: its diagnostics, code lenses and hovers go
--- (the server keeps them), running tests stop and saves are not tested
--- until `resume`.
function M.pause()
  execute_everywhere("mutiny.pause")
end

--- Resumes every mutiny server: its diagnostics come back, and the files
--- saved while paused are tested.
function M.resume()
  execute_everywhere("mutiny.resume")
end

--- Resumes when every mutiny server is paused, else pauses them all.
function M.toggle()
  local running = clients.get()
  local all_paused = #running > 0
  for _, client in ipairs(running) do
    all_paused = all_paused and progress.is_paused(client.id)
  end
  if all_paused then
    M.resume()
  else
    M.pause()
  end
end

--- Diagnostics as the server sent them (Neovim keeps the original).
---@param diagnostics vim.Diagnostic[]
---@return table[]
local function to_lsp(diagnostics)
  if vim.lsp.diagnostic.from then
    return vim.lsp.diagnostic.from(diagnostics)
  end
  return vim.tbl_map(function(d)
    return d.user_data and d.user_data.lsp or {}
  end, diagnostics)
end

--- Shows the diffs of the missed mutants on the cursor line.
function M.diff_at_cursor()
  local bufnr = vim.api.nvim_get_current_buf()
  local line = vim.api.nvim_win_get_cursor(0)[1] - 1
  local attached = clients.get(bufnr)
  if #attached == 0 then
    vim.notify("mutiny: the language server is not running for this buffer", vim.log.levels.WARN)
    return
  end
  local client = attached[1]
  local namespace = vim.lsp.diagnostic.get_namespace(client.id)
  local on_line = vim.diagnostic.get(bufnr, { namespace = namespace, lnum = line })
  if #on_line == 0 then
    vim.notify("mutiny: no missed mutants on this line", vim.log.levels.INFO)
    return
  end
  -- Diagnostics do not carry the mutant's name; the server's
  -- `Show mutant diff` code actions do, one per diagnostic.
  local line_text = vim.api.nvim_buf_get_lines(bufnr, line, line + 1, false)[1] or ""
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = line, character = 0 }, ["end"] = { line = line, character = #line_text } },
    context = { diagnostics = to_lsp(on_line) },
  }
  clients.request(client, "textDocument/codeAction", params, function(err, actions)
    if err then
      vim.notify("mutiny: " .. err.message, vim.log.levels.ERROR)
      return
    end
    local names = {}
    for _, action in ipairs(actions or {}) do
      local command = action.command
      if type(command) == "table" then
        -- A CodeAction with a command.
        action = command
      end
      if action.command == "mutiny.showMutantDiff" then
        for _, name in ipairs(action.arguments or {}) do
          if not vim.tbl_contains(names, name) then
            names[#names + 1] = name
          end
        end
      end
    end
    if #names == 0 then
      vim.notify("mutiny: no missed mutants on this line", vim.log.levels.INFO)
      return
    end
    diff.open(client, names, bufnr, M.options.diff_split)
  end, bufnr)
end

--- For status lines: `mutiny: 4/9 mutants · src/lib.rs` while mutiny tests,
--- `mutiny: paused` while paused, else "".
---@return string
function M.status()
  return progress.status()
end

return M
