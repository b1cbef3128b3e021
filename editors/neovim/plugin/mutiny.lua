-- The :Mutiny* commands exist as soon as the plugin is on the runtimepath;
-- the language server starts once `require("mutiny").setup()` has run.
if vim.g.loaded_mutiny then
  return
end
vim.g.loaded_mutiny = true

require("mutiny.commands").create()
