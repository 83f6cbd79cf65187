#!/usr/bin/env bash
# Set up (.venv, npm packages), build dist/ if it is missing or older than its sources, then serve the app.
# Arguments go to scripts/serve.py: --port N (default 8000), --host, --allow-private-host HOST, --dist PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1

python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "Python 3.11+ is needed as python3" >&2; exit 1; }
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check 'setuptools==80.9.0' -e '.[test,dev]'
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
export PATH="$PWD/.venv/bin:$PATH"

stale() {
  [ ! -f dist/index.html ] && return 0
  [ -n "$(find web runtime package.json package-lock.json pyproject.toml scripts/build_wheels.py \
    -newer dist/index.html -type f -not -path 'web/public/pyodide/*' -not -path 'web/public/wheels/*' \
    -not -path '*/__pycache__/*' -print -quit)" ]
}
if stale; then npm run build; fi

exec python scripts/serve.py "$@"
