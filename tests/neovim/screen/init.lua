-- The config of the Neovim that tests/neovim/screen/capture.sh runs in tmux
-- (with a UI, unlike the headless tests): the plugin as a user would set
-- it up, a status line with mutiny's progress, diagnostics as virtual text.
-- It saves the file once the server attached, and writes $MUTINY_SCREEN_MARKER
-- when the run ended.
local plugin_dir = assert(os.getenv("MUTINY_PLUGIN_DIR"))
vim.opt.runtimepath:prepend(plugin_dir)
vim.cmd.runtime("plugin/mutiny.lua")

vim.o.termguicolors = true
vim.o.number = true
vim.o.signcolumn = "yes"
vim.o.laststatus = 2
vim.o.shortmess = vim.o.shortmess .. "F"
vim.o.statusline = "%f %m%=%{v:lua.require'mutiny'.status()}  %l:%c "
vim.diagnostic.config({ virtual_text = true })

require("mutiny").setup({ cmd = { assert(os.getenv("MUTINY_BIN")), "lsp" } })

local saved = false
vim.api.nvim_create_autocmd("LspAttach", {
  callback = function(args)
    local client = vim.lsp.get_client_by_id(args.data.client_id)
    if client and client.name == "mutiny" and not saved then
      saved = true
      vim.schedule(function()
        vim.cmd("silent write")
      end)
    end
  end,
})
vim.api.nvim_create_autocmd("LspProgress", {
  pattern = "end",
  callback = function()
    vim.defer_fn(function()
      vim.fn.writefile({ "done" }, assert(os.getenv("MUTINY_SCREEN_MARKER")))
    end, 1000)
  end,
})
