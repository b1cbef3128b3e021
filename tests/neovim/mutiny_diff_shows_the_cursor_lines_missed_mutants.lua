-- :MutinyDiff on a line without missed mutants says so; on the line of
-- `compatible`'s three missed mutants it opens their diffs in a split
-- scratch buffer with filetype=diff.
local H = dofile(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")) .. "/harness.lua")
H.start(300)

local crate = H.copy_fixture("example")
H.setup_plugin()
local bufnr = H.open(crate .. "/src/lib.rs")
H.check(vim.fn.exists(":MutinyDiff") == 2, ":MutinyDiff exists")
H.write_and_wait_tested(bufnr)
local window = vim.api.nvim_get_current_win()
local windows = #vim.api.nvim_tabpage_list_wins(0)

-- A line with no missed mutant.
vim.api.nvim_win_set_cursor(0, { H.line_of(bufnr, "pub fn count_matching"), 0 })
local before = #H.notifications
vim.cmd("MutinyDiff")
H.wait("a message", 10, function()
  return #H.notifications > before
end)
H.check(
  H.notifications[before + 1].message == "mutiny: no missed mutants on this line",
  ":MutinyDiff on a line without missed mutants says `no missed mutants on this line`",
  H.notifications[before + 1].message
)
H.check(vim.api.nvim_get_current_win() == window and #vim.api.nvim_tabpage_list_wins(0) == windows, "  and opens nothing")

-- The line of `version.major == 0 && version.minor == required.minor`.
local line = H.line_of(bufnr, "version.major == 0 && version.minor == required.minor")
vim.api.nvim_win_set_cursor(0, { line, 0 })
vim.cmd("MutinyDiff")
local diff_buf = H.wait_diff_buffer(bufnr, "the diff buffer")
local text = H.text(diff_buf)
H.log("diff:\n" .. text)
H.check(vim.bo[diff_buf].filetype == "diff", "the diff opens in a buffer with filetype=diff")
H.check(#vim.api.nvim_tabpage_list_wins(0) == windows + 1, "  in a split")
H.check(vim.api.nvim_win_get_buf(window) == bufnr, "  beside src/lib.rs")
H.check(vim.bo[diff_buf].buftype == "nofile" and not vim.bo[diff_buf].modifiable, "  a read-only scratch buffer")
local headers = {}
for header in text:gmatch("\n?%+%+%+ ([^\n]*)") do
  headers[#headers + 1] = header
end
table.sort(headers)
H.check(
  vim.deep_equal(headers, {
    "replace && with || in compatible",
    "replace == with != in compatible",
    "replace == with != in compatible",
  }),
  "it holds the diffs of the line's three missed mutants",
  vim.inspect(headers)
)
H.check(text:find("\n-        version.major == 0 && version.minor == required.minor\n", 1, true) ~= nil, "  removing the original line", text)
H.check(text:find("\n+        version.major == 0 || ", 1, true) ~= nil, "  adding the mutated ones", text)
H.check(text:find("\n+        version.major != ", 1, true) ~= nil, "  (each of them)", text)

-- Again from the source window: the same diff view is reused.
vim.api.nvim_set_current_win(window)
vim.api.nvim_win_set_cursor(0, { H.line_of(bufnr, "self.major > 0"), 0 })
vim.cmd("MutinyDiff")
H.wait("the diff view to show is_stable", 30, function()
  return H.text(diff_buf):find("in Version::is_stable", 1, true) ~= nil
end)
H.check(#vim.api.nvim_tabpage_list_wins(0) == windows + 1, "a second :MutinyDiff reuses the diff window")
local _, count = H.text(diff_buf):gsub("%+%+%+ ", "")
H.check(count == 5, "  showing the five mutants of is_stable", tostring(count))

-- A server without the `mutiny/mutants` request: the diff comes from the
-- `mutiny.showMutantDiff` command, whose request to open the diff file the
-- server writes (window/showDocument) the plugin declines.
local client = vim.lsp.get_clients({ bufnr = bufnr, name = "mutiny" })[1]
require("mutiny.diff").without_mutants_request[client.id] = true
-- The plugin's answers to the server's window/showDocument requests: the
-- event after which "it opened nothing" can be checked.
local show_document = client.handlers["window/showDocument"]
H.check(show_document ~= nil, "the plugin handles window/showDocument")
local shown = {}
client.handlers["window/showDocument"] = function(err, params, ctx, config)
  local result = show_document(err, params, ctx, config)
  shown[#shown + 1] = { uri = params and params.uri, result = result }
  return result
end
vim.api.nvim_set_current_win(window)
vim.api.nvim_win_set_cursor(0, { line, 0 })
vim.cmd("MutinyDiff")
H.wait("the diff view to show compatible again", 30, function()
  return H.text(diff_buf):find("in compatible", 1, true) ~= nil
end)
H.check(H.text(diff_buf) == text, "through the mutiny.showMutantDiff command the diff is the same")
local written = crate .. "/target/mutiny/diff"
H.wait("the diff file the server writes", 10, function()
  return #vim.fn.glob(written .. "/*.diff", false, true) > 0
end)
H.wait("the plugin to answer the server's request to show the diff file", 10, function()
  return #shown > 0
end)
H.log("window/showDocument: " .. vim.inspect(shown))
H.check(
  #shown == 1 and shown[1].uri:find("/target/mutiny/diff/", 1, true) ~= nil and shown[1].result.success == false,
  "the server asks to show the diff file it wrote, and the plugin declines",
  vim.inspect(shown)
)
local opened = vim.tbl_filter(function(b)
  return vim.api.nvim_buf_get_name(b):find("/target/mutiny/diff/", 1, true) ~= nil
end, vim.api.nvim_list_bufs())
H.check(#opened == 0, "  and the diff file the server asks to show is not opened as well", vim.inspect(opened))
H.check(#vim.api.nvim_tabpage_list_wins(0) == windows + 1, "  nor another window")

H.done()
