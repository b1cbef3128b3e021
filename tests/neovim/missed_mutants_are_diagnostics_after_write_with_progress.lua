-- Saving src/lib.rs of the example crate shows exactly its missed mutants
-- (tests/fixtures/EXPECTED.md) as mutiny warnings, and the run shows as LSP
-- progress: vim.lsp.status() and require("mutiny").status() while it runs.
local H = dofile(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")) .. "/harness.lua")
H.start(300)

local crate = H.copy_fixture("example")
H.setup_plugin()
local bufnr, client = H.open(crate .. "/src/lib.rs")
H.check(client.root_dir == crate, "the client's root is the crate's Cargo workspace", tostring(client.root_dir))
H.check(#H.diagnostics(bufnr) == 0, "no diagnostics before the first save")

local progress = H.write_and_wait_tested(bufnr)

local expected = H.expected_missed()
H.check(#expected == 11, "EXPECTED.md lists 11 missed mutants in src/lib.rs", tostring(#expected))
local diagnostics = H.diagnostics(bufnr)
local seen = {}
for _, d in ipairs(diagnostics) do
  seen[#seen + 1] = ("%d:%d: %s [%s]"):format(d.lnum + 1, d.col + 1, d.message, tostring(d.code))
  H.log("diagnostic " .. seen[#seen])
end
H.check(#diagnostics == #expected, "as many diagnostics as missed mutants", table.concat(seen, "\n"))
-- Each expected mutant matches one diagnostic, by message and position
-- (two mutants of `compatible` share a message).
local unmatched = vim.deepcopy(diagnostics)
for _, mutant in ipairs(expected) do
  local message = ("missed mutant: %s — tests still pass"):format(mutant.description)
  local found
  for i, d in ipairs(unmatched) do
    if d.message == message and d.lnum == mutant.line - 1 and d.col == mutant.column - 1 then
      found = table.remove(unmatched, i)
      break
    end
  end
  H.check(
    found ~= nil,
    ("diagnostic at %d:%d: %s"):format(mutant.line, mutant.column, message),
    table.concat(seen, "\n")
  )
  H.check(found.severity == vim.diagnostic.severity.WARN, "  is a warning")
  local genre = mutant.description:match("^replace .* with .* in ") and "BinaryOperator" or "FnValue"
  H.check(found.code == genre, "  has code " .. genre, tostring(found.code))
end
H.check(#unmatched == 0, "no other mutiny diagnostic")

-- Progress: begin, reports `N/27 mutants · src/lib.rs`, end with a summary.
local kinds, reports = {}, {}
for _, value in ipairs(progress) do
  kinds[value.kind] = (kinds[value.kind] or 0) + 1
  if value.kind == "report" then
    reports[#reports + 1] = value
  end
end
H.check(kinds.begin == 1 and kinds["end"] == 1, "one progress begin and one end for the run", vim.inspect(kinds))
H.check(#reports > 0, "progress reports while mutants are tested")
local last = reports[#reports]
H.check(
  last.title == "mutiny" and last.message:match("^%d+/%d+ mutants · src/lib%.rs$") ~= nil,
  "a report reads `mutiny: N/M mutants · src/lib.rs`",
  last.title .. ": " .. last.message
)
H.check(
  last.lsp_status:find("mutiny: " .. last.message, 1, true) ~= nil,
  "vim.lsp.status() shows it while the run is in flight",
  last.lsp_status
)
local statuses = {}
for _, value in ipairs(progress) do
  statuses[#statuses + 1] = value.mutiny_status
end
local during = vim.tbl_filter(function(s)
  return s:match("^mutiny: %d+/%d+ mutants · src/lib%.rs$") ~= nil
end, statuses)
H.check(#during > 0, 'require("mutiny").status() shows the run for status lines', vim.inspect(statuses))
H.check(require("mutiny").status() == "", 'require("mutiny").status() is empty once the run ended', require("mutiny").status())
H.check(progress[#progress].message:match("^27 mutants tested, 11 missed$") ~= nil, "the run ends with `27 mutants tested, 11 missed`", progress[#progress].message)

H.done()
