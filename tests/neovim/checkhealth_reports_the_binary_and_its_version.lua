-- :checkhealth mutiny says the configured binary is found and prints the
-- version it reports; with a cmd that does not exist it reports an error.
local H = dofile(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")) .. "/harness.lua")
H.start(60)

local version = vim.trim(vim.system({ H.bin, "--version" }, { text = true }):wait().stdout)
H.check(version:match("^mutiny %d+%.%d+%.%d+") ~= nil, "`mutiny --version` prints a version", version)

local function checkhealth()
  vim.cmd("checkhealth mutiny")
  local report = H.text(vim.api.nvim_get_current_buf())
  H.log("checkhealth:\n" .. report)
  vim.cmd("bwipeout!")
  return report
end

H.setup_plugin()
local report = checkhealth()
H.check(report:find("mutiny binary found: " .. H.bin, 1, true) ~= nil, "checkhealth says the binary is found, with its path", report)
H.check(report:find("version: " .. version, 1, true) ~= nil, "checkhealth shows its version: " .. version, report)
H.check(report:find("setup() has run", 1, true) ~= nil, "checkhealth says setup() has run", report)
H.check(report:find("ERROR", 1, true) == nil, "and reports no error", report)

H.setup_plugin({ cmd = { H.repo .. "/target/no-such-mutiny", "lsp" } })
report = checkhealth()
H.check(
  report:find("ERROR mutiny binary not found: " .. H.repo .. "/target/no-such-mutiny", 1, true) ~= nil,
  "with a cmd that does not exist, checkhealth reports the binary not found",
  report
)
H.check(report:find("version:", 1, true) == nil, "  and no version", report)

H.done()
