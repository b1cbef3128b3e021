#!/usr/bin/env bash
# Runs Neovim with a UI in tmux on a copy of the example crate, saves
# src/lib.rs, and captures the screen as text: while mutiny runs (progress
# in the status line), after it (warnings and code lenses), and after
# :MutinyDiff. The captures go to target/editor-screenshots/neovim/; the
# script fails when a capture lacks what it should show.
#
# With PYTHON set to a Python that has Pillow, each capture is also
# rendered to a PNG (tests/neovim/screen/render.py).
#
#   [PYTHON=…] tests/neovim/screen/capture.sh NVIM_BINARY
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
nvim="$1"
out="$repo/target/editor-screenshots/neovim"
bin="${MUTINY_BIN:-$repo/target/debug/mutiny}"
work="$(mktemp -d "${MUTINY_TEST_TMP:-${TMPDIR:-/tmp}}/mutiny-nvim-screen.XXXXXX")"
socket="mutiny-nvim-screen-$$"
mkdir -p "$out" "$work/example"
cp -R "$repo/tests/fixtures/example/Cargo.toml" "$repo/tests/fixtures/example/src" "$work/example/"

# The pids of the mutiny servers running in the copy of the crate.
servers() {
  local proc
  for proc in /proc/[0-9]*; do
    if [ "$(readlink "$proc/cwd" 2>/dev/null)" = "$work/example" ] \
      && tr '\0' ' ' <"$proc/cmdline" 2>/dev/null | grep -qF -- "$bin lsp"; then
      echo "${proc#/proc/}"
    fi
  done
}

cleanup() {
  tmux -L "$socket" kill-server 2>/dev/null || true
  # A server still running here is a failure the script has reported (it
  # waits for the server to exit after nvim quits): end it, then delete.
  local pid
  for pid in $(servers); do
    kill "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

capture() {
  tmux -L "$socket" capture-pane -p -t screen >"$out/$1.txt"
  tmux -L "$socket" capture-pane -p -e -t screen >"$out/$1.ansi"
  if [ -n "${PYTHON:-}" ] && "$PYTHON" -c "import PIL" 2>/dev/null; then
    "$PYTHON" "$here/render.py" "$out/$1.ansi" "$out/$1.png" 140 45
  fi
}

fail() {
  echo "not ok: $1"
  exit 1
}

wait_for() { # seconds, what, command...
  local seconds="$1" what="$2"
  shift 2
  local deadline=$((SECONDS + seconds))
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || fail "gave up waiting ${seconds}s for $what"
    sleep 0.2
  done
}

screen_has() {
  tmux -L "$socket" capture-pane -p -t screen | grep -qF -- "$1"
}

tmux -L "$socket" -f /dev/null new-session -d -s screen -x 140 -y 45 -c "$work/example" \
  env TERM=xterm-256color MUTINY_BIN="$bin" MUTINY_PLUGIN_DIR="$repo/editors/neovim" \
  MUTINY_SCREEN_MARKER="$work/done" \
  "$nvim" --clean -u "$here/init.lua" src/lib.rs

# Progress in the status line while the run is in flight.
screen_shows_progress() {
  tmux -L "$socket" capture-pane -p -t screen | grep -qE "mutiny: [1-9][0-9]*/[0-9]+ mutants · src/lib.rs"
}
wait_for 240 "progress in the status line" screen_shows_progress
capture progress
grep -qE "mutiny: [0-9]+/27 mutants · src/lib.rs" "$out/progress.txt" || fail "the status line shows progress"
echo "ok: the status line shows mutiny's progress (progress.txt)"

wait_for 240 "the run to end" test -e "$work/done"
# Show the code of `compatible` with its lens and warnings.
tmux -L "$socket" send-keys -t screen ":26" Enter "zt" ":58" Enter
wait_for 20 "the code lens" screen_has "3 missed mutants · show diff"
wait_for 20 "the lens of is_stable" screen_has "5 missed mutants · show diff"
wait_for 20 "the warnings of compatible" screen_has " in compatible"
capture diagnostics-and-lens
grep -qF "5 missed mutants · show diff" "$out/diagnostics-and-lens.txt" || fail "the lens of is_stable shows"
grep -qF "missed mutant: replace && with || in compatible" "$out/diagnostics-and-lens.txt" \
  || grep -qF "missed mutant: replace == with != in compatible" "$out/diagnostics-and-lens.txt" \
  || fail "the warnings of compatible show"
echo "ok: warnings and code lenses show (diagnostics-and-lens.txt)"

# Hover on the warning: the mutant's name and diff.
tmux -L "$socket" send-keys -t screen ":call cursor(58, 28)" Enter "K"
wait_for 20 "the hover" screen_has "changed by mutiny"
wait_for 20 "the hover's title" screen_has "missed mutant"
capture hover
grep -qF "missed mutant" "$out/hover.txt" || fail "the hover names the missed mutant"
echo "ok: hover shows the mutant and its diff (hover.txt)"
tmux -L "$socket" send-keys -t screen Escape ":MutinyDiff" Enter
wait_for 20 "the diff" screen_has "+++ replace"
wait_for 20 "the diff view's name" screen_has "mutiny://diff"
capture diff
grep -qF "mutiny://diff" "$out/diff.txt" || fail "the diff view is named mutiny://diff"
echo "ok: :MutinyDiff shows the diff (diff.txt)"

tmux -L "$socket" send-keys -t screen Escape ":qa!" Enter
wait_for 20 "nvim to quit" bash -c "! tmux -L '$socket' has-session -t screen 2>/dev/null"
# The server, told to shut down and exit as nvim quits, exits by itself.
no_server() { [ -z "$(servers)" ]; }
wait_for 15 "the mutiny server to exit after nvim quit" no_server
echo "ok: the server exits when nvim quits"
