-- :MutinyPause empties the buffer's mutiny diagnostics and code lenses and
-- the status line reads "mutiny: paused"; a :write while paused tests
-- nothing (the server says it will on resume); :MutinyResume brings the
-- same diagnostics back and tests the file written meanwhile.
-- :MutinyToggle pauses, and resumes when paused.
local H = dofile(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")) .. "/harness.lua")
H.start(340)

-- The server's log messages (window/logMessage), before Neovim's handler.
local logged = {}
local log_handler = vim.lsp.handlers["window/logMessage"]
vim.lsp.handlers["window/logMessage"] = function(err, params, ctx, config)
  logged[#logged + 1] = params and params.message or ""
  return log_handler(err, params, ctx, config)
end
local function was_logged(text)
  for _, message in ipairs(logged) do
    if message:find(text, 1, true) then
      return true
    end
  end
  return false
end

local crate = H.copy_fixture("example")
H.setup_plugin()
local bufnr = H.open(crate .. "/src/lib.rs")
for _, name in ipairs({ "MutinyPause", "MutinyResume", "MutinyToggle" }) do
  H.check(vim.fn.exists(":" .. name) == 2, ":" .. name .. " exists")
end

--- The buffer's mutiny diagnostics as `line:col: message` lines.
local function shown()
  return vim.tbl_map(function(d)
    return ("%d:%d: %s"):format(d.lnum + 1, d.col + 1, d.message)
  end, H.diagnostics(bufnr))
end

local function events_since(index, kind)
  local found = {}
  for i = index + 1, #H.progress do
    if H.progress[i].kind == kind then
      found[#found + 1] = H.progress[i]
    end
  end
  return found
end

local function lens_count()
  return #vim.lsp.codelens.get(bufnr)
end

H.write_and_wait_tested(bufnr)
H.wait("the 11 missed mutants as diagnostics", 10, function()
  return #H.diagnostics(bufnr) == 11
end)
H.wait("the 3 code lenses", 10, function()
  return lens_count() == 3
end)
local before = shown()

-- Paused: nothing shown.
vim.cmd("MutinyPause")
H.wait("the diagnostics to go after :MutinyPause", 30, function()
  return #H.diagnostics(bufnr) == 0
end)
H.check(#H.diagnostics(bufnr) == 0, ":MutinyPause empties the buffer's mutiny diagnostics")
H.wait("the status line to read `mutiny: paused`", 30, function()
  return require("mutiny").status() == "mutiny: paused"
end)
H.check(require("mutiny").status() == "mutiny: paused", 'require("mutiny").status() reads `mutiny: paused`')
H.wait("the code lenses to go", 30, function()
  return lens_count() == 0
end)
H.check(lens_count() == 0, "  and the code lenses go")

-- A :write while paused is kept for the resume: no run.
local written = #H.progress
vim.cmd("write")
H.wait("the server to keep the :write for the resume", 30, function()
  return was_logged("mutiny: paused: src/lib.rs will be tested on resume")
end)
H.check(#events_since(written, "begin") == 0, "a :write while paused starts no run", vim.inspect(H.progress))
H.check(#H.diagnostics(bufnr) == 0, "  and shows nothing")

-- Resumed: the same diagnostics first (before the run of the :write
-- replaces them with earlier results, then with its own).
local published = {}
vim.api.nvim_create_autocmd("DiagnosticChanged", {
  buffer = bufnr,
  callback = function()
    published[#published + 1] = shown()
  end,
})
vim.cmd("MutinyResume")
H.wait("the diagnostics to come back after :MutinyResume", 30, function()
  return #published > 0
end)
-- The run of the :write may already have begun when they are published
-- (the server sends what a document shows as one state): then they are
-- marked as earlier results being tested again. The same 11 either way.
local function without_retest_mark(lines)
  return vim.tbl_map(function(line)
    return (line:gsub(" %(earlier result, to be tested again%)$", ""))
  end, lines)
end
H.check(
  vim.deep_equal(without_retest_mark(published[1]), before),
  ":MutinyResume brings the same 11 diagnostics back",
  vim.inspect({ before = before, after = published[1] })
)
H.wait("the run of the file written while paused", 240, function()
  return #events_since(written, "end") > 0
end)
local ended = events_since(written, "end")
local begun = events_since(written, "begin")
H.check(
  #begun == 1 and #ended == 1 and ended[1].message == "27 earlier results re-tested, 11 missed",
  "  and tests the file written while paused, in one run",
  vim.inspect({ begun = begun, ended = ended })
)
H.wait("the 11 missed mutants after that run", 10, function()
  return #H.diagnostics(bufnr) == 11
end)
H.check(#H.diagnostics(bufnr) == 11, "  which shows the 11 missed mutants")
H.wait("the status line to be empty once idle", 10, function()
  return require("mutiny").status() == ""
end)
H.check(require("mutiny").status() == "", 'require("mutiny").status() is empty again')

-- :MutinyToggle: pause, then resume.
vim.cmd("MutinyToggle")
H.wait("the diagnostics to go after :MutinyToggle", 30, function()
  return #H.diagnostics(bufnr) == 0 and require("mutiny").status() == "mutiny: paused"
end)
H.check(#H.diagnostics(bufnr) == 0, ":MutinyToggle pauses")
vim.cmd("MutinyToggle")
H.wait("the diagnostics to come back after the second :MutinyToggle", 30, function()
  return #H.diagnostics(bufnr) == 11 and require("mutiny").status() == ""
end)
H.check(#H.diagnostics(bufnr) == 11, "  and a second :MutinyToggle resumes")
H.wait("the code lenses to come back", 30, function()
  return lens_count() == 3
end)
H.check(lens_count() == 3, "  with the code lenses")

H.done()
