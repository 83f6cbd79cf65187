#!/usr/bin/env bash
# Set up (.venv, npm packages), build dist/ if it is missing or older than its sources, then serve the app.
# Arguments go to scripts/serve.py: --port N (default 8000), --host, --allow-private-host HOST, --dist PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1

source scripts/setup.sh "server"

stale() {
  [ ! -f dist/index.html ] && return 0
  [ -n "$(find web runtime package.json package-lock.json pyproject.toml scripts/build_wheels.py \
    -newer dist/index.html -type f -not -path 'web/public/pyodide/*' -not -path 'web/public/wheels/*' \
    -not -path '*/__pycache__/*' -print -quit)" ]
}
if stale; then npm run build; fi

exec python scripts/serve.py "$@"
