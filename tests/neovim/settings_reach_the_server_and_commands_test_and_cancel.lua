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

vim.cmd("write")
vim.wait(8000)
H.check(#H.progress == 0, "with onSave = false, :write starts no run", vim.inspect(H.progress))

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

before = #H.progress
require("mutiny").configure({ onSave = true })
vim.cmd("write")
H.wait("a run to begin after configure({ onSave = true }) and :write", 60, function()
  return #events_since(before, "begin") > 0
end)
H.check(true, 'after require("mutiny").configure({ onSave = true }), :write starts a run')

H.done()
