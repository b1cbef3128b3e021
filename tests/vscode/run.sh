#!/usr/bin/env bash
# Builds, unit-tests and packages the mutiny VS Code extension, then tests
# the .vsix end to end in code-server (real VS Code) driven by Debian's
# Chromium, against the real `mutiny lsp`.
#
#   tests/vscode/run.sh            everything
#   MUTINY_BIN=/path/to/mutiny     the server to test (default target/debug/mutiny)
#   KEEP_E2E_DIR=1                 keep the temporary workspace and logs
#
# code-server is installed once into target/editors/vscode/ (from npm, with
# nothing downloaded beyond npm packages: ripgrep comes from Debian).
# Screenshots land in target/editor-screenshots/vscode/.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
extension="$repo/editors/vscode"
code_server_version=4.100.3
cache="$repo/target/editors/vscode/code-server-$code_server_version"
mutiny_bin="${MUTINY_BIN:-$repo/target/debug/mutiny}"

step() { printf '\n== %s\n' "$*"; }

step "checking the machine"
missing=()
for command in node npm rg chromium cc make pkg-config; do
    command -v "$command" >/dev/null 2>&1 || missing+=("$command")
done
[ -e /usr/include/gssapi/gssapi.h ] || [ -e /usr/include/krb5.h ] || missing+=("libkrb5-dev")
if [ "${#missing[@]}" -gt 0 ]; then
    echo "missing: ${missing[*]}" >&2
    echo "install them with: apt-get install -y build-essential pkg-config libkrb5-dev ripgrep chromium" >&2
    exit 1
fi
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 20 ]; then
    echo "Node.js 20 or newer is needed (found $(node --version))" >&2
    exit 1
fi
if [ ! -x "$mutiny_bin" ]; then
    echo "no mutiny binary at $mutiny_bin: run 'cargo build --locked' in $repo, or set MUTINY_BIN" >&2
    exit 1
fi

step "extension: npm ci, compile, unit tests, package"
cd "$extension"
npm ci --no-audit --no-fund --loglevel=error
npm run --silent compile
npm test
rm -f mutiny-*.vsix
npm run --silent package
vsix="$(ls "$extension"/mutiny-*.vsix)"

step "end-to-end harness: npm ci"
cd "$here"
npm ci --no-audit --no-fund --loglevel=error

step "code-server $code_server_version in $cache"
entry="$cache/node_modules/code-server/out/node/entry.js"
if [ ! -e "$cache/.complete" ]; then
    rm -rf "$cache"
    mkdir -p "$cache"
    cd "$cache"
    echo '{"name": "mutiny-code-server", "private": true}' >package.json
    # --ignore-scripts: code-server's postinstall would fetch more; what it
    # needs is rebuilt by hand below, with ripgrep from Debian.
    npm install --no-audit --no-fund --loglevel=error --ignore-scripts "code-server@$code_server_version"
    npm rebuild --loglevel=error argon2
    cd "$cache/node_modules/code-server/lib/vscode"
    npm install --no-audit --no-fund --loglevel=error --omit=dev --ignore-scripts
    mkdir -p node_modules/@vscode/ripgrep/bin
    ln -sf "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
    npm_config_yes=true npm rebuild --loglevel=error
    touch "$cache/.complete"
fi
# XDG_CONFIG_HOME: code-server writes a default config.yaml there on every start.
XDG_CONFIG_HOME="$cache/config" node "$entry" --version

step "end-to-end test (mutiny: $mutiny_bin)"
"$mutiny_bin" --version
cd "$here"
CODE_SERVER="$entry" VSIX="$vsix" MUTINY_BIN="$mutiny_bin" \
    node --test --test-concurrency=1 --test-reporter=spec e2e.test.mjs
echo "screenshots: $repo/target/editor-screenshots/vscode/"
