-- After a save, each function with missed mutants has a code lens
-- `N missed mutant(s) · show diff` (refreshed by the plugin, no manual
-- refresh here), and vim.lsp.codelens.run() on it opens its diffs.
local H = dofile(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")) .. "/harness.lua")
H.start(300)

local crate = H.copy_fixture("example")
H.setup_plugin()
local bufnr = H.open(crate .. "/src/lib.rs")
H.write_and_wait_tested(bufnr)

-- Missed mutants per function (tests/fixtures/EXPECTED.md).
local expected = {
  { fn = "pub fn is_stable", title = "5 missed mutants · show diff" },
  { fn = "pub fn matches", title = "3 missed mutants · show diff" },
  { fn = "fn compatible", title = "3 missed mutants · show diff" },
}
local function lenses()
  local result = {}
  for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
    if lens.command then
      result[#result + 1] = lens
    end
  end
  table.sort(result, function(a, b)
    return a.range.start.line < b.range.start.line
  end)
  return result
end
H.wait("three code lenses with titles", 20, function()
  return #lenses() == #expected
end)
local found = lenses()
for i, want in ipairs(expected) do
  local lens = found[i]
  -- The lens sits at the function's first line: its doc comment or
  -- attributes if it has any, else `fn`.
  local lines = vim.api.nvim_buf_get_lines(bufnr, lens.range.start.line, -1, false)
  local line = lines[1]
  local k = 1
  while lines[k] and (vim.trim(lines[k]):match("^///") or vim.trim(lines[k]):match("^#%[")) do
    k = k + 1
  end
  local fn_line = lines[k] or ""
  H.log(("lens at %d: %s | %s"):format(lens.range.start.line + 1, lens.command.title, line))
  H.check(
    lens.command.title == want.title,
    ("the lens of `%s` reads `%s`"):format(want.fn, want.title),
    lens.command.title
  )
  H.check(vim.startswith(vim.trim(fn_line), want.fn), "  and sits at the function", line)
  H.check(lens.command.command == "mutiny.showMutantDiff", "  and runs mutiny.showMutantDiff")
  local names = lens.command.arguments or {}
  local count = tonumber(want.title:match("^(%d+)"))
  H.check(#names == count, ("  with %d mutant names"):format(count), vim.inspect(names))
end

-- The lens is drawn as virtual text in the buffer.
local marks = vim.api.nvim_buf_get_extmarks(bufnr, -1, 0, -1, { details = true })
local drawn = {}
for _, mark in ipairs(marks) do
  for _, chunk in ipairs(mark[4].virt_text or {}) do
    drawn[#drawn + 1] = chunk[1]
  end
end
H.check(
  table.concat(drawn, " "):find("3 missed mutants · show diff", 1, true) ~= nil,
  "the lens text is displayed in the buffer",
  vim.inspect(drawn)
)

-- Run the lens of `compatible`.
local compatible = found[3]
vim.api.nvim_win_set_cursor(0, { compatible.range.start.line + 1, 0 })
local windows = #vim.api.nvim_tabpage_list_wins(0)
vim.lsp.codelens.run()
local diff_buf = H.wait_diff_buffer(bufnr, "a diff buffer after vim.lsp.codelens.run()")
local text = H.text(diff_buf)
H.log("diff:\n" .. text)
H.check(#vim.api.nvim_tabpage_list_wins(0) == windows + 1, "it opens in a split")
H.check(vim.bo[diff_buf].buftype == "nofile" and not vim.bo[diff_buf].modifiable, "in a read-only scratch buffer")
H.check(text:match("^%-%-%- src/lib%.rs\n%+%+%+ ") ~= nil, "it is a unified diff of src/lib.rs", text)
H.check(select(2, text:gsub("\n@@ %-", "")) == 3, "with the three mutants of `compatible`", text)
H.check(text:find("\n+++ replace && with || in compatible\n", 1, true) ~= nil, "  among them `&&` replaced by `||`", text)
H.check(text:find("\n-        version.major == 0 && version.minor == required.minor\n", 1, true) ~= nil, "  with the original line removed", text)
H.check(text:find("\n+        version.major == 0 || ", 1, true) ~= nil, "  and the mutated line added", text)

H.done()
