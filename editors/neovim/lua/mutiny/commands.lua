--- The :Mutiny* user commands.

local M = {}

function M.create()
  local function mutiny()
    return require("mutiny")
  end
  local commands = {
    MutinyTestFile = { function() mutiny().test_file(0) end, "mutiny: test the current file's mutants now" },
    MutinyTestWorkspace = { function() mutiny().test_workspace() end, "mutiny: test every source file's mutants" },
    MutinyCancel = { function() mutiny().cancel() end, "mutiny: stop every queued and running test" },
    MutinyPause = { function() mutiny().pause() end, "mutiny: hide the results and test nothing until :MutinyResume" },
    MutinyResume = { function() mutiny().resume() end, "mutiny: show the results again and test the files saved while paused" },
    MutinyToggle = { function() mutiny().toggle() end, "mutiny: pause, or resume when paused" },
    MutinyDiff = { function() mutiny().diff_at_cursor() end, "mutiny: show the diffs of the missed mutants on the cursor line" },
  }
  for name, command in pairs(commands) do
    vim.api.nvim_create_user_command(name, command[1], { nargs = 0, desc = command[2] })
  end
end

return M
