#!/usr/bin/env bash
# Emacs + eglot + the real `mutiny lsp`, end to end: see eglot-test.el.
#
#   tests/emacs/run.sh            # uses target/debug/mutiny (cargo build first)
#   MUTINY_BIN=/path/to/mutiny tests/emacs/run.sh
#
# Installs nothing. Needs Debian's emacs-nox, elpa-eglot and (optional,
# else the test defines a bare rust-mode) elpa-rust-mode, plus git.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
packages="emacs-nox elpa-eglot elpa-rust-mode"

if ! command -v emacs >/dev/null; then
    echo "tests/emacs: emacs is not installed; install it with:" >&2
    echo "  apt-get install -y $packages" >&2
    exit 2
fi
mutiny="${MUTINY_BIN:-$repo/target/debug/mutiny}"
if [ ! -x "$mutiny" ]; then
    echo "tests/emacs: no mutiny binary at $mutiny; run 'cargo build --locked' or set MUTINY_BIN" >&2
    exit 2
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# A copy, never the fixture itself: the test saves and edits it. A git
# repository, so that project.el finds the crate root as it would in a
# real checkout.
cp -R "$repo/tests/fixtures/example" "$work/example"
git -C "$work/example" init -q

# The global timeout: the test has its own deadline (180 s for the
# results), this one also catches Emacs itself hanging.
export MUTINY_BIN="$mutiny" MUTINY_TEST_CRATE="$work/example" \
    MUTINY_TEST_EXPECTED="$repo/tests/fixtures/EXPECTED.md" \
    EMACS_TEST_PACKAGES="$packages" TMPDIR="$work"
start=$SECONDS
status=0
timeout --kill-after=10 300 emacs --batch -Q -l "$here/eglot-test.el" || status=$?
if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo "tests/emacs: FAILED: emacs was killed after 300 s" >&2
fi
echo "tests/emacs: emacs exited $status after $((SECONDS - start)) s"
exit "$status"
