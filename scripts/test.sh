#!/usr/bin/env bash
# Set up (.venv, npm packages), build the app, then run every test layer:
# the generated protocol files are current (protocol:check), ruff (with the complexity rule, C90), sizes
# (scripts/check_sizes.py), mypy (strict on runtime/, the server and the fake provider), TypeScript
# typecheck, the web import rule (dependency-cruiser), ESLint, vitest, pytest (unit, runtime, pyodide,
# server, e2e).
# Runs all layers even when one fails; exits non-zero if any did.
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1

source scripts/setup.sh "test,dev"
# The end-to-end tests drive Debian's Chromium (not a browser downloaded by Playwright).
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium
  else
    echo "The end-to-end tests need Chromium at /usr/bin/chromium: sudo apt-get install chromium" >&2
    exit 1
  fi
fi
npm run build

failed=()
layer() {
  local name=$1
  shift
  echo
  echo "=== $name: $*"
  if "$@"; then echo "=== $name: ok"; else echo "=== $name: FAILED"; failed+=("$name"); fi
}
layer protocol npm run protocol:check
layer ruff ruff check .
layer sizes python scripts/check_sizes.py
layer mypy mypy
layer mypy-server mypy --strict scripts/serve.py scripts/server
layer mypy-fakes mypy --strict --explicit-package-bases scripts/fakes
layer typecheck npm run typecheck
layer deps npm run deps
layer eslint npm run lint
layer format npm run format:check
layer vitest npm run test:ts
layer pytest python -m pytest -q -ra

echo
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED layers: ${failed[*]}"
  exit 1
fi
echo "All test layers passed."
