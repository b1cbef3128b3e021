#!/usr/bin/env bash
# Every test: the Rust tests (unit, CLI and language server end to end),
# then the editors' end-to-end tests against the debug binary those built.
# As root on Debian, missing system packages are installed first
# (tests/setup.sh); otherwise that script says what to install.
set -euo pipefail
cd "$(dirname "$0")/.."

tests/setup.sh
cargo test --workspace --locked
# The binary the editor tests start (`cargo test` built it already).
cargo build --locked --bin mutiny
export MUTINY_BIN="$PWD/target/debug/mutiny"

failed=()
for editor in emacs neovim vscode; do
    echo "== tests/$editor"
    start=$SECONDS
    if bash "tests/$editor/run.sh"; then
        echo "== tests/$editor: passed in $((SECONDS - start)) s"
    else
        echo "== tests/$editor: FAILED after $((SECONDS - start)) s"
        failed+=("$editor")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "editor tests failed: ${failed[*]}" >&2
    exit 1
fi
