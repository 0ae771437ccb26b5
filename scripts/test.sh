#!/usr/bin/env bash
# The whole test suite: unit tests, generated-file and quiz checks (as tests), then every
# notebook (lessons and docs) under nbval in strict mode.
# Usage: bash scripts/test.sh [extra pytest args]   (after `pip install -r requirements.txt` in .venv)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
bash scripts/install_sandbox.sh >/dev/null   # the grader's tests run submissions in bubblewrap
# The browser tests (tests/browser) need Debian's chromium; their screenshots are kept outside
# the run's temporary folder, for a person to look at (the path is printed at the end).
bash scripts/install_chromium.sh >/dev/null
export ADKCOURSE_BROWSER_TESTS=required
export ADKCOURSE_SCREENSHOTS=${ADKCOURSE_SCREENSHOTS:-${TMPDIR:-/tmp}/adkcourse-screenshots}
before=$(git status --porcelain 2>/dev/null || true)

# Every pinned requirement must install from wheels on each supported Python and platform
# (README: "Supported Pythons and platforms"); pip answers from the registry in about a minute.
$PY scripts/check_wheels.py

# Everything the run writes outside the repository (scratch data, PostgreSQL data folders and
# sockets) goes to one private temporary folder, checked for leftovers at the end.
run_tmp=$(mktemp -d "${TMPDIR:-/tmp}/adkcourse-test-run-XXXXXX")
chmod 711 "$run_tmp"   # PostgreSQL runs as its own user and must reach its folders below
export TMPDIR="$run_tmp"

paths=(tests notebooks)
[ -n "$(ls docs/*.ipynb 2>/dev/null)" ] && paths+=(docs)
$PY -m pytest "${paths[@]}" --nbval --nbval-current-env \
  --nbval-sanitize-with tests/sanitize.cfg -p no:cacheprovider "$@"

# Second pass: lessons 3 and 4 and the api_server test against a PostgreSQL the course did not start
# (Debian's, from scripts/system_postgres.sh), stopped in all cases.
syspg=$(mktemp -d "${TMPDIR:-/tmp}/adkcourse-test-syspg-XXXXXX")
trap 'bash scripts/system_postgres.sh stop "$syspg" >/dev/null 2>&1 || true' EXIT
syspg_url=$(bash scripts/system_postgres.sh start "$syspg")
ADKCOURSE_POSTGRES_URL="$syspg_url" $PY -m pytest notebooks/03_postgres.ipynb notebooks/04_production_postgres.ipynb notebooks/06_long_conversations.ipynb \
  "tests/test_api_server.py::test_preference_survives_a_restart_of_adk_api_server[system-postgres]" \
  --nbval --nbval-current-env --nbval-sanitize-with tests/sanitize.cfg -p no:cacheprovider
bash scripts/system_postgres.sh stop "$syspg"

# Nothing the suite ran may leave files in the repository or a PostgreSQL server behind.
after=$(git status --porcelain 2>/dev/null || true)
if [ "$before" != "$after" ]; then
  echo "FAIL: the test run changed the repository:"; diff <(echo "$before") <(echo "$after") || true
  exit 1
fi
sleep 1
if pgrep -f "postgres.*adkcourse-test-" >/dev/null; then
  echo "FAIL: a PostgreSQL server started by the tests is still running:"; pgrep -af "postgres.*adkcourse-test-"
  exit 1
fi
leftover=$(find "$run_tmp" \( -name PG_VERSION -o -name 'pgdata-*' \) 2>/dev/null || true)
if [ -n "$leftover" ]; then
  echo "FAIL: the test run left PostgreSQL data folders behind:"; echo "$leftover"
  exit 1
fi
rm -rf "$run_tmp"
