-- The quick fix `Skip mutants in fn … (#[mutants::skip])`, applied through
-- vim.lsp.buf.code_action({ filter, apply = true }) on a missed mutant of
-- the indented method `Version::is_stable`, puts `#[mutants::skip]` above
-- it with its indentation, and adds `mutants = "0.0.4"` to the Cargo.toml
-- buffer (edits go to buffers; nothing is written to disk).
local H = dofile(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")) .. "/harness.lua")
H.start(300)

local crate = H.copy_fixture("example")
local manifest_path = crate .. "/Cargo.toml"
local manifest_on_disk = table.concat(vim.fn.readfile(manifest_path), "\n")
H.setup_plugin()
local bufnr = H.open(crate .. "/src/lib.rs")
H.write_and_wait_tested(bufnr)
local lib_on_disk = table.concat(vim.fn.readfile(crate .. "/src/lib.rs"), "\n")

local fn_line = H.line_of(bufnr, "pub fn is_stable(&self) -> bool {")
local body_line = H.line_of(bufnr, "self.major > 0")
H.check(
  #vim.diagnostic.get(bufnr, { lnum = body_line - 1 }) > 0,
  "missed mutants are reported on the body of is_stable"
)
vim.api.nvim_win_set_cursor(0, { body_line, 8 })

local offered = {}
vim.lsp.buf.code_action({
  filter = function(action)
    offered[#offered + 1] = action.title
    return action.title:match("^Skip mutants in fn .*is_stable %(#%[mutants::skip%]%)$") ~= nil
  end,
  apply = true,
})
H.wait("the quick fix to edit the buffer", 30, function()
  return H.text(bufnr):find("#[mutants::skip]", 1, true) ~= nil
end)
H.log("offered: " .. vim.inspect(offered))
H.check(
  vim.tbl_contains(offered, "Re-test this mutant: replace Version::is_stable -> bool with true")
    and vim.tbl_contains(offered, "Show mutant diff: replace Version::is_stable -> bool with true"),
  "Re-test this mutant and Show mutant diff are offered beside it, named",
  vim.inspect(offered)
)

local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
H.check(lines[fn_line] == "    #[mutants::skip]", "`    #[mutants::skip]` is inserted with the method's indentation", lines[fn_line])
H.check(lines[fn_line + 1] == "    pub fn is_stable(&self) -> bool {", "  right above `pub fn is_stable`", lines[fn_line + 1])
H.check(#lines == #vim.split(lib_on_disk, "\n") + 1, "  as the only change to src/lib.rs")
H.check(vim.bo[bufnr].modified, "src/lib.rs is modified in its buffer")
H.check(table.concat(vim.fn.readfile(crate .. "/src/lib.rs"), "\n") == lib_on_disk, "  and not on disk")

local manifest_buf = vim.fn.bufnr(manifest_path)
H.check(manifest_buf ~= -1 and vim.api.nvim_buf_is_loaded(manifest_buf), "Cargo.toml is loaded in a buffer for the edit")
local manifest_lines = vim.api.nvim_buf_get_lines(manifest_buf, 0, -1, false)
H.log("Cargo.toml buffer:\n" .. table.concat(manifest_lines, "\n"))
local dependencies, dependency
for i, line in ipairs(manifest_lines) do
  if line == "[dependencies]" then
    dependencies = i
  elseif line == 'mutants = "0.0.4"' then
    dependency = i
  end
end
H.check(dependency ~= nil, 'the Cargo.toml buffer has `mutants = "0.0.4"`', table.concat(manifest_lines, "\n"))
H.check(dependencies ~= nil and dependencies < dependency, "  under [dependencies]")
local others = 0
for i = dependencies + 1, dependency - 1 do
  if manifest_lines[i]:match("^%[") then
    others = others + 1
  end
end
H.check(others == 0, "  in that table")
H.check(vim.bo[manifest_buf].modified, "the Cargo.toml buffer is modified")
H.check(table.concat(vim.fn.readfile(manifest_path), "\n") == manifest_on_disk, "  and Cargo.toml on disk is not")

H.done()
