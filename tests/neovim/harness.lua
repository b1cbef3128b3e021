-- Shared by the Neovim tests: a temp copy of a fixture crate, the plugin
-- from editors/neovim set up against the real `mutiny lsp`, waits with
-- timeouts, and results on stdout (headless `print` goes to stderr).
--
-- Each test: `nvim --headless --clean -l tests/neovim/<test>.lua`; it exits
-- 0 when every check passed, 1 on the first failure or on its timeout.

local H = {}

local script = vim.fn.fnamemodify(arg[0], ":p")
H.test_name = vim.fn.fnamemodify(script, ":t:r")
H.here = vim.fs.dirname(script)
H.repo = vim.fs.normalize(vim.fn.fnamemodify(H.here .. "/../..", ":p")):gsub("/$", "")
H.bin = os.getenv("MUTINY_BIN") or (H.repo .. "/target/debug/mutiny")
H.plugin_dir = H.repo .. "/editors/neovim"

local temp_dirs = {}
local finished = false

function H.out(text)
  io.stdout:write(text .. "\n")
  io.stdout:flush()
end

--- Details for a failing run (stderr, shown by run.sh on failure).
function H.log(text)
  io.stderr:write("[" .. os.date("%H:%M:%S") .. "] " .. text .. "\n")
end

--- Neovim's message that a server quit with an error code or a signal.
local function server_quit()
  for _, notification in ipairs(H.notifications or {}) do
    local message = tostring(notification.message)
    if message:match("^Client .* quit with exit code") then
      return message
    end
  end
  return nil
end

--- Stops the mutiny servers (shutdown, then exit: they delete their
--- scratch trees on the way out), waits until each process has exited, and
--- deletes the temp copies. Returns what went wrong, or nil: a server that
--- does not exit by itself after `exit` (it is killed then, so nothing
--- leaks, but the test fails), or one that quit with an error code or a
--- signal at any time during the test (Neovim's "Client … quit with exit
--- code …" message).
local function cleanup()
  local problems = {}
  local running = vim.lsp.get_clients()
  local function left()
    -- Neovim forgets a client once its process has exited and the exit
    -- was handled.
    return vim.tbl_filter(function(client)
      return vim.lsp.get_client_by_id(client.id) ~= nil
    end, running)
  end
  for _, client in ipairs(running) do
    client:stop()
  end
  if not vim.wait(15000, function()
    return #left() == 0
  end, 50) then
    local names = vim.tbl_map(function(client)
      return ("%s (id %d, root %s)"):format(client.name, client.id, tostring(client.root_dir))
    end, left())
    problems[#problems + 1] = "the server did not exit within 15 s of shutdown and exit: "
      .. table.concat(names, ", ")
      .. "; killed"
    for _, client in ipairs(left()) do
      client.rpc.terminate()
    end
    if not vim.wait(10000, function()
      return #left() == 0
    end, 50) then
      problems[#problems + 1] = "the server did not exit after SIGTERM either"
    end
  end
  local quit = server_quit()
  if quit then
    problems[#problems + 1] = quit
  end
  for _, dir in ipairs(temp_dirs) do
    vim.fn.delete(dir, "rf")
  end
  if #problems > 0 then
    return table.concat(problems, "; ")
  end
  return nil
end

function H.finish(code, message)
  if finished then
    return
  end
  finished = true
  if message then
    H.out(message)
  end
  local problem = cleanup()
  if problem then
    H.out("not ok: when the test ended: " .. problem)
    code = 1
  end
  H.out((code == 0 and "PASS " or "FAIL ") .. H.test_name)
  os.exit(code)
end

function H.fail(message)
  H.finish(1, "not ok: " .. message)
end

--- Checks a condition; the first failing check ends the test.
function H.check(condition, what, detail)
  if condition then
    H.out("ok: " .. what)
  else
    H.fail(what .. (detail and (" — " .. detail) or ""))
  end
end

function H.done()
  H.finish(0)
end

--- Fails the test after `seconds`, whatever it is waiting for.
function H.start(seconds)
  local timer = vim.uv.new_timer()
  timer:start(seconds * 1000, 0, function()
    vim.schedule(function()
      H.fail(("timed out after %d s"):format(seconds))
    end)
  end)
  -- Messages the plugin shows, to assert on them.
  H.notifications = {}
  vim.notify = function(message, level)
    H.notifications[#H.notifications + 1] = { message = message, level = level }
    H.log("notify: " .. tostring(message))
  end
  if vim.fn.executable(H.bin) ~= 1 then
    H.fail("no mutiny binary at " .. H.bin .. " (cargo build --locked, or set MUTINY_BIN)")
  end
end

--- Waits until `predicate()` is true, or fails the test: after `seconds`,
--- or at once when a server quits with an error (what it waits for will
--- not come then).
function H.wait(what, seconds, predicate)
  local quit
  local ok = vim.wait(seconds * 1000, function()
    quit = server_quit()
    return quit ~= nil or predicate()
  end, 50)
  if quit then
    H.fail(("a server quit while waiting for %s: %s"):format(what, quit))
  elseif not ok then
    H.fail(("gave up waiting %d s for %s"):format(seconds, what))
  end
end

--- A copy of tests/fixtures/<name> in a new temp dir (never the fixture
--- itself: the server writes target/ there and the tests edit it).
function H.copy_fixture(name)
  local base = (os.getenv("MUTINY_TEST_TMP") or vim.uv.os_tmpdir() or "/tmp")
  local parent = assert(vim.uv.fs_mkdtemp(base .. "/mutiny-nvim-XXXXXX"))
  temp_dirs[#temp_dirs + 1] = parent
  local source = H.repo .. "/tests/fixtures/" .. name
  local copy = parent .. "/" .. name
  vim.fn.mkdir(copy, "p")
  for entry in vim.fs.dir(source) do
    if entry ~= "target" and entry ~= "mutants.out" then
      local result = vim.system({ "cp", "-R", source .. "/" .. entry, copy .. "/" }):wait()
      if result.code ~= 0 then
        H.fail("copying the fixture: " .. (result.stderr or ""))
      end
    end
  end
  return copy
end

--- Puts the plugin on the runtimepath, sources plugin/mutiny.lua (Neovim
--- loaded plugins before this script ran) and calls setup.
function H.load_plugin()
  if not vim.g.loaded_mutiny then
    vim.opt.runtimepath:prepend(H.plugin_dir)
    vim.cmd.runtime("plugin/mutiny.lua")
  end
end

function H.setup_plugin(opts)
  H.load_plugin()
  opts = opts or {}
  opts.cmd = opts.cmd or { H.bin, "lsp" }
  require("mutiny").setup(opts)
end

--- Opens a file and waits until the mutiny client is attached and
--- initialized.
function H.open(path)
  vim.cmd.edit(vim.fn.fnameescape(path))
  local bufnr = vim.api.nvim_get_current_buf()
  H.wait("the mutiny client to attach to " .. path, 60, function()
    local client = vim.lsp.get_clients({ bufnr = bufnr, name = "mutiny" })[1]
    return client ~= nil and client.initialized == true
  end)
  return bufnr, vim.lsp.get_clients({ bufnr = bufnr, name = "mutiny" })[1]
end

--- Progress values of mutiny clients, as `LspProgress` delivered them,
--- with what the status line functions said at each.
H.progress = {}
vim.api.nvim_create_autocmd("LspProgress", {
  callback = function(args)
    local client = vim.lsp.get_client_by_id(args.data.client_id)
    if client and client.name == "mutiny" then
      local value = vim.deepcopy(args.data.params.value)
      value.token = args.data.params.token
      -- Read after the plugin's own LspProgress handler ran.
      vim.schedule(function()
        value.mutiny_status = require("mutiny").status()
      end)
      value.lsp_status = vim.lsp.status()
      H.progress[#H.progress + 1] = value
    end
  end,
})

--- Saves the buffer and waits until the run it starts has ended (its
--- work-done progress `end`, `N mutants tested, M missed`).
function H.write_and_wait_tested(bufnr, seconds)
  local before = #H.progress
  vim.api.nvim_buf_call(bufnr, function()
    vim.cmd.write()
  end)
  H.wait("the run after :write to end", seconds or 240, function()
    for i = before + 1, #H.progress do
      local value = H.progress[i]
      if value.kind == "end" then
        if not (value.message or ""):match("tested") then
          H.fail("the run ended with: " .. tostring(value.message))
        end
        return true
      end
    end
    return false
  end)
  -- The server publishes a run's diagnostics before its progress end, so
  -- they are in; what is left is the harness's own status line reads,
  -- scheduled after each LspProgress.
  H.wait("the status line reads of the run's progress", 10, function()
    for i = before + 1, #H.progress do
      if H.progress[i].mutiny_status == nil then
        return false
      end
    end
    return true
  end)
  return { unpack(H.progress, before + 1) }
end

--- The mutiny diagnostics of a buffer.
function H.diagnostics(bufnr)
  local result = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.source == "mutiny" then
      result[#result + 1] = d
    end
  end
  table.sort(result, function(a, b)
    if a.lnum ~= b.lnum then
      return a.lnum < b.lnum
    end
    if a.col ~= b.col then
      return a.col < b.col
    end
    return a.message < b.message
  end)
  return result
end

--- The missed mutants of tests/fixtures/example/src/lib.rs as
--- tests/fixtures/EXPECTED.md lists them (cargo-mutants' verdicts):
--- `{ line, column (1-based), description }`.
function H.expected_missed()
  local lines = vim.fn.readfile(H.repo .. "/tests/fixtures/EXPECTED.md")
  local missed, in_example, in_block = {}, false, false
  for _, line in ipairs(lines) do
    if line:match("^%- %*%*example%*%*") then
      in_example = true
    elseif in_example and line:match("^%- %*%*") then
      break
    elseif in_example and line:match("^%s*```") then
      if in_block then
        break
      end
      in_block = true
    elseif in_block then
      local l, c, description = line:match("^%s*src/lib%.rs:(%d+):(%d+): (.*)$")
      if l then
        missed[#missed + 1] = { line = tonumber(l), column = tonumber(c), description = description }
      end
    end
  end
  return missed
end

--- Lines of a buffer as one string.
function H.text(bufnr)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n")
end

--- The 1-based line of the first buffer line containing `needle`.
function H.line_of(bufnr, needle)
  for i, line in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    if line:find(needle, 1, true) then
      return i
    end
  end
  H.fail("no line contains " .. needle)
end

-- Waits until a buffer other than `bufnr` with filetype=diff is current,
-- and returns it.
function H.wait_diff_buffer(bufnr, what, seconds)
  local found
  H.wait(what, seconds or 30, function()
    local current = vim.api.nvim_get_current_buf()
    if current ~= bufnr and vim.bo[current].filetype == "diff" then
      found = current
      return true
    end
    return false
  end)
  return found
end

return H
