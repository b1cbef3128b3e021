--- :checkhealth mutiny

local M = {}

function M.check()
  local health = vim.health
  local mutiny = require("mutiny")
  local options = mutiny.options

  health.start("Neovim and setup")
  if vim.fn.has("nvim-0.10") == 1 then
    local version = vim.version()
    health.ok(("Neovim %d.%d.%d"):format(version.major, version.minor, version.patch))
  else
    health.error("Neovim 0.10 or newer is required")
  end
  if mutiny.did_setup then
    health.ok('setup() has run; the server starts for filetypes: ' .. table.concat(options.filetypes, ", "))
  else
    health.warn('setup() has not run, so the server does not start', {
      'call require("mutiny").setup({}) (lazy.nvim does it when the spec has `opts`)',
    })
  end

  health.start("mutiny binary")
  local cmd = options.cmd or {}
  local program = cmd[1]
  local path = program and vim.fn.exepath(program) or ""
  if path == "" then
    health.error(("mutiny binary not found: %s"):format(program or "(no cmd)"), {
      "install it with `cargo install --path server` from the mutiny repository",
      'or point setup({ cmd = { "/path/to/mutiny", "lsp" } }) at it',
    })
  else
    health.ok(("mutiny binary found: %s"):format(path))
    local ok, result = pcall(function()
      return vim.system({ path, "--version" }, { text = true }):wait(10000)
    end)
    if ok and result.code == 0 then
      health.ok(("version: %s"):format(vim.trim(result.stdout or "")))
    else
      local why = ok and vim.trim((result.stderr or "") .. " (exit " .. tostring(result.code) .. ")") or tostring(result)
      health.error(("`%s --version` failed: %s"):format(path, why))
    end
  end
  if vim.fn.executable("cargo") == 1 then
    health.ok("cargo found: " .. vim.fn.exepath("cargo"))
  else
    health.warn("cargo not found on PATH: mutiny needs it to build and test mutants")
  end

  health.start("running servers")
  local running = require("mutiny.client").get()
  if #running == 0 then
    health.info("no mutiny server is running (open a Rust file of a Cargo workspace)")
  end
  for _, client in ipairs(running) do
    local buffers = vim.lsp.get_buffers_by_client_id(client.id)
    health.info(("client %d, root %s, %d buffer(s)"):format(client.id, client.root_dir or "?", #buffers))
  end
end

return M
