-- setup({ settings = { onSave = false } }) reaches the server: :write tests
-- nothing. :MutinyTestFile starts a run and :MutinyCancel stops it;
-- :MutinyTestWorkspace then tests the crate and reports its missed mutants.
-- require("mutiny").configure({ onSave = true }) reaches the running server:
-- :write starts a run again.
local H = dofile(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")) .. "/harness.lua")
H.start(300)

local crate = H.copy_fixture("example")
H.setup_plugin({ settings = { onSave = false } })
local bufnr = H.open(crate .. "/src/lib.rs")
for _, name in ipairs({ "MutinyTestFile", "MutinyTestWorkspace", "MutinyCancel", "MutinyDiff" }) do
  H.check(vim.fn.exists(":" .. name) == 2, ":" .. name .. " exists")
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

-- With onSave = false the :write below must start no run. Nothing shows
-- that it did not, so the check waits for what shows the moment has
-- passed: the server handles didSave and the commands sent after it in
-- the order they come (each handler queues its job before it yields), and
-- its worker takes the jobs in that order, so once the runs of the
-- commands sent after the :write have begun, a run the :write started
-- would have begun before them. Each run's progress
-- token numbers the server's jobs: `mutiny/1` is its first.
local written = #H.progress
vim.cmd("write")

local before = #H.progress
vim.cmd("MutinyTestFile")
H.wait("a run to begin after :MutinyTestFile", 60, function()
  return #events_since(before, "begin") > 0
end)
H.check(
  events_since(before, "begin")[1].message:match("^0/27 mutants · src/lib%.rs$") ~= nil,
  ":MutinyTestFile starts a run of src/lib.rs's 27 mutants",
  events_since(before, "begin")[1].message
)
vim.cmd("MutinyCancel")
H.wait("the run to end after :MutinyCancel", 120, function()
  return #events_since(before, "end") > 0
end)
H.check(events_since(before, "end")[1].message == "cancelled", ":MutinyCancel stops it", events_since(before, "end")[1].message)

before = #H.progress
vim.cmd("MutinyTestWorkspace")
H.wait("the workspace run to end", 240, function()
  return #events_since(before, "end") > 0
end)
local ended = events_since(before, "end")[1].message
H.check(ended == "27 mutants tested, 11 missed", ":MutinyTestWorkspace tests the crate: 27 mutants tested, 11 missed", ended)
H.wait("the missed mutants as diagnostics", 10, function()
  return #H.diagnostics(bufnr) == 11
end)
H.check(#H.diagnostics(bufnr) == 11, "  and shows its 11 missed mutants")

local tokens = vim.tbl_map(function(value)
  return value.token
end, events_since(written, "begin"))
H.check(
  vim.deep_equal(tokens, { "mutiny/1", "mutiny/2" }),
  "with onSave = false, :write started no run: the server's only runs were :MutinyTestFile's and :MutinyTestWorkspace's",
  vim.inspect(events_since(written, "begin"))
)

before = #H.progress
require("mutiny").configure({ onSave = true })
vim.cmd("write")
H.wait("a run to begin after configure({ onSave = true }) and :write", 60, function()
  return #events_since(before, "begin") > 0
end)
local begun = events_since(before, "begin")
H.check(
  #begun == 1 and begun[1].token == "mutiny/3" and begun[1].message:match("^0/27 earlier results · src/lib%.rs$") ~= nil,
  'after require("mutiny").configure({ onSave = true }), :write starts a run of src/lib.rs\'s 27 mutants (unchanged: their earlier results re-tested)',
  vim.inspect(begun)
)
-- The test ends with this run in flight: the server must still stop (and
-- exit) when the harness shuts it down.

H.done()
