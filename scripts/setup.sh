# Sourced by run.sh and test.sh: make .venv (with the given pip extras) and node_modules current.
# Usage: source scripts/setup.sh EXTRAS   (e.g. "server" or "test,dev")
python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || { echo "Python 3.11+ is needed as python3" >&2; exit 1; }
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check 'setuptools==80.9.0' -e ".[$1]"
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
export PATH="$PWD/.venv/bin:$PATH"
