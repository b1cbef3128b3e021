-- The server's root is the Cargo workspace: for a member crate's file it is
-- the directory whose Cargo.toml has [workspace], not the member's; for a
-- lone package, its own directory; a file outside any package gets no
-- server. setup() after the buffer opened (as lazy.nvim's `ft = "rust"`
-- does) still attaches it, and both members of one workspace share one
-- server.
local H = dofile(vim.fs.dirname(vim.fn.fnamemodify(arg[0], ":p")) .. "/harness.lua")
H.start(120)

local workspace = H.copy_fixture("workspace")
local example = H.copy_fixture("example")
local outside = vim.fs.dirname(example) .. "/loose.rs"
vim.fn.writefile({ "fn main() {}" }, outside)

H.load_plugin()
local roots = require("mutiny.workspace")
H.check(roots.root_of(workspace .. "/crates/app/src/main.rs") == workspace, "a member's root is the workspace")
H.check(roots.root_of(example .. "/src/lib.rs") == example, "a lone package's root is its directory")
H.check(roots.root_of(outside) == nil, "a file outside any package has no root")

-- Opened before setup().
vim.cmd.edit(vim.fn.fnameescape(workspace .. "/crates/app/src/main.rs"))
local app = vim.api.nvim_get_current_buf()
H.check(vim.bo[app].filetype == "rust", "the member's file is a rust buffer")
H.setup_plugin()
H.wait("the client to attach to the buffer opened before setup()", 60, function()
  return vim.lsp.get_clients({ bufnr = app, name = "mutiny" })[1] ~= nil
end)
local client = vim.lsp.get_clients({ bufnr = app, name = "mutiny" })[1]
H.check(client.root_dir == workspace, "setup() after the buffer opened attaches it, rooted at the workspace", client.root_dir)
H.check(
  client.workspace_folders and client.workspace_folders[1].uri == vim.uri_from_fname(workspace),
  "  which is the workspace folder the server gets",
  vim.inspect(client.workspace_folders)
)

local core = H.open(workspace .. "/crates/core/src/lib.rs")
H.check(vim.lsp.get_clients({ bufnr = core, name = "mutiny" })[1].id == client.id, "the other member shares the server")

local lone = H.open(example .. "/src/lib.rs")
local lone_client = vim.lsp.get_clients({ bufnr = lone, name = "mutiny" })[1]
H.check(lone_client.id ~= client.id and lone_client.root_dir == example, "another workspace gets its own server")

vim.cmd.edit(vim.fn.fnameescape(outside))
local loose = vim.api.nvim_get_current_buf()
-- Neovim decides which server a Rust buffer gets (and starts or attaches
-- it) in the order the buffers open: once a Rust file opened after the
-- loose one has its server, the loose one has had its turn. A server
-- started for it would be running then, though still initializing (not
-- attached, not listed by get_clients): its process is counted.
local later = H.open(example .. "/src/later.rs")
H.check(vim.lsp.get_clients({ bufnr = later, name = "mutiny" })[1].id == lone_client.id, "a Rust file opened after it gets its package's server")
local function server_processes()
  local found = {}
  for _, pid in ipairs(vim.api.nvim_get_proc_children(vim.fn.getpid())) do
    local process = vim.api.nvim_get_proc(pid)
    if process and tostring(process.name):find("mutiny", 1, true) then
      found[#found + 1] = process
    end
  end
  return found
end
H.check(#vim.lsp.get_clients({ bufnr = loose, name = "mutiny" }) == 0, "a Rust file outside any package gets no server")
H.check(
  #vim.lsp.get_clients({ name = "mutiny" }) == 2 and #server_processes() == 2,
  "two servers in all",
  vim.inspect(server_processes())
)

H.done()
