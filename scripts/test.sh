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

# (The check that every pin installs from wheels on each supported Python and platform,
# scripts/check_wheels.py, asks the package registry for minutes: CI runs it, in .ci/run.)

# Everything the run writes outside the repository (scratch data, PostgreSQL data folders and
# sockets) goes to one private temporary folder, checked for leftovers at the end.
base_tmp=${TMPDIR:-/tmp}
run_tmp=$(mktemp -d "$base_tmp/adkcourse-test-run-XXXXXX")
chmod 711 "$run_tmp"   # PostgreSQL runs as its own user and must reach its folders below
export TMPDIR="$run_tmp"

# Pass 1 runs the English lessons; the generated French and Indonesian ones (notebooks/<lang>/,
# the same code cells) run in pass 2, where the English would only repeat what pass 1 showed.
translated=($($PY -c "from adkcourse.i18n import LANGUAGES; print(*(f'notebooks/{lang}' for lang in LANGUAGES))"))
notebook_paths=(notebooks)
for folder in "${translated[@]}"; do notebook_paths+=(--ignore "$folder"); done
[ -n "$(ls docs/*.ipynb 2>/dev/null)" ] && notebook_paths+=(docs)
results=$(mktemp -d "${TMPDIR:-/tmp}/adkcourse-test-results-XXXXXX")

# Second pass, three changes at once:
# - the notebooks are the French and Indonesian ones, generated from the English (python -m
#   adkcourse.i18n generate): same code cells, markdown and quiz in their language, each run in
#   its own folder, where the quiz follows the notebook's language;
# - the lessons that use PostgreSQL, and the api_server test, run against a server the course
#   did not start (Debian's PostgreSQL 15, from scripts/system_postgres.sh, stopped in all cases);
# - every lesson and the labs' `adk run` tests run with a Gemini key set, on ADK's real Gemini
#   class and google-genai client over real HTTP, answered by the course's local fake endpoint
#   (scripts/with_fake_gemini.py fails the pass if no generateContent call arrived).
# It shares nothing with the first pass (its own pytest scratch folder, server, ports and
# environment), so it runs at the same time, in the background, followed there by three parts
# of the first pass, each its own pytest run: the browser tests (tests/browser: JupyterLab and
# Notebook 7 in Chromium), then the English lessons and docs notebooks under nbval, with the
# machine kept at 4 times its cores in load, then the grader's property and hostile tests. The
# foreground runs the other unit tests. Split this way the two halves take about as long and
# both cores are busy; the background's output is printed when it is done. Extra arguments
# (`bash scripts/test.sh -k quiz`) run the whole first pass in the foreground, where they apply.
syspg=$(mktemp -d "${TMPDIR:-/tmp}/adkcourse-test-syspg-XXXXXX")
background_pid=""
# How every run ends, passed, failed or interrupted: the servers stopped, one closing count,
# and the run's scratch removed; a run that did not pass keeps only its logs and JUnit files, in
# a folder it names (the scratch itself, databases and all, can be hundreds of MB).
summary() {
  $PY - "$results"/first.xml "$results"/second.xml "$results"/browser.xml "$results"/lessons.xml \
    "$results"/property.xml <<'PYEOF'
import os, sys, xml.etree.ElementTree as ET
totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
for path in sys.argv[1:]:
  if not os.path.exists(path):
    continue
  try:
    suites = list(ET.parse(path).getroot().iter("testsuite"))
  except ET.ParseError:  # a pass that was interrupted while writing its results
    continue
  for suite in suites:
    for key in totals:
      totals[key] += int(suite.get(key, 0))
# Where the time went: each part's wall time and its ten slowest test files (from JUnit's
# per-test times), so that a slow run says what made it slow.
for path in sys.argv[1:]:
  if not os.path.exists(path):
    continue
  try:
    root = ET.parse(path).getroot()
  except ET.ParseError:
    continue
  by_file = {}
  for case in root.iter("testcase"):
    name = case.get("file") or case.get("classname", "?").replace(".", "/")
    by_file[name] = by_file.get(name, 0.0) + float(case.get("time", 0) or 0)
  wall = sum(float(suite.get("time", 0) or 0) for suite in root.iter("testsuite"))
  slowest = sorted(by_file.items(), key=lambda item: -item[1])[:10]
  print(f"{os.path.basename(path)[:-4]}: {wall:.0f} s; slowest: "
        + ", ".join(f"{name} {seconds:.0f}" for name, seconds in slowest))
passed = totals["tests"] - totals["failures"] - totals["errors"] - totals["skipped"]
print(f"whole suite (both passes, the browser and the property tests): {passed} passed, "
      f"{totals['failures'] + totals['errors']} failed, {totals['skipped']} skipped")
PYEOF
}
cleanup() {
  status=$?
  trap - EXIT INT TERM
  [ -n "$background_pid" ] && kill -- "-$background_pid" 2>/dev/null || true
  bash scripts/system_postgres.sh stop "$syspg" >/dev/null 2>&1 || true
  summary || true
  if [ "$status" != 0 ]; then
    kept="$base_tmp/adkcourse-test-last-failed-run"
    rm -rf "$kept" && cp -r "$results" "$kept" 2>/dev/null || true
    echo "this run did not pass (exit status $status): its logs and JUnit results are in $kept;" \
      "the rest of its scratch ($(du -sh "$run_tmp" 2>/dev/null | cut -f1)) is removed"
  fi
  rm -rf "$run_tmp"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
syspg_url=$(bash scripts/system_postgres.sh start "$syspg")
split=$([ $# -eq 0 ] && echo 1 || echo 0)
# The longest unit tests run in the background half, after the English lessons, so that both
# halves take about as long: the property checks over many gradings (a reference and two right
# answers per exercise graded idle and at 4x load; every reference on 10 seeds) and the
# hostile submissions.
property_tests=(tests/test_grade_load.py tests/test_references.py tests/test_grade_hostile.py)
if [ "$split" = 1 ]; then
  paths=(tests --ignore tests/browser)
  for path in "${property_tests[@]}"; do paths+=(--ignore "$path"); done
else
  paths=(tests "${notebook_paths[@]}")
fi
set -m   # the background half in its own process group, so that cleanup can stop all of it
(
  status=0
  ADKCOURSE_POSTGRES_URL="$syspg_url" $PY scripts/with_fake_gemini.py --min-calls 1 -- \
    $PY -m pytest "${translated[@]}" tests/test_cafe_concierge.py \
    "tests/test_api_server.py::test_preference_survives_a_restart_of_adk_api_server[system-postgres]" \
    --nbval --nbval-current-env --nbval-sanitize-with tests/sanitize.cfg -p no:cacheprovider \
    --junitxml "$results/second.xml" >"$results/second.log" 2>&1 || status=$?
  echo "$status" >"$results/second.status"
  bash scripts/system_postgres.sh stop "$syspg" >>"$results/second.log" 2>&1 || echo 1 >"$results/second.status"
  if [ "$split" = 1 ]; then
    status=0
    $PY -m pytest tests/browser -p no:cacheprovider --junitxml "$results/browser.xml" \
      >"$results/browser.log" 2>&1 || status=$?
    echo "$status" >"$results/browser.status"
    # The English lessons run on a busy machine: 4 busy processes per core while they run
    # (scripts/under_load.py), so that a demo or assert that depends on timing fails here.
    status=0
    $PY scripts/under_load.py --per-core 4 -- $PY -m pytest "${notebook_paths[@]}" --nbval \
      --nbval-current-env --nbval-sanitize-with tests/sanitize.cfg -p no:cacheprovider \
      --junitxml "$results/lessons.xml" >"$results/lessons.log" 2>&1 || status=$?
    echo "$status" >"$results/lessons.status"
    status=0
    $PY -m pytest "${property_tests[@]}" -p no:cacheprovider --junitxml "$results/property.xml" \
      >"$results/property.log" 2>&1 || status=$?
    echo "$status" >"$results/property.status"
  fi
) &
background_pid=$!
set +m

# First pass: the unit tests (and, when arguments were given, the browser tests and the English
# lessons and docs notebooks).
first_status=0
$PY -m pytest "${paths[@]}" --nbval --nbval-current-env \
  --nbval-sanitize-with tests/sanitize.cfg -p no:cacheprovider --junitxml "$results/first.xml" \
  "$@" || first_status=$?

wait "$background_pid" || true
background_pid=""
echo; echo "==== second pass (French and Indonesian notebooks, PostgreSQL 15, fake Gemini key) ===="
cat "$results/second.log"
second_status=$(cat "$results/second.status" 2>/dev/null || echo "not run")
browser_status=0
lessons_status=0
property_status=0
if [ "$split" = 1 ]; then
  echo; echo "==== first pass: browser tests (JupyterLab and Notebook 7 in Chromium) ===="
  cat "$results/browser.log"
  browser_status=$(cat "$results/browser.status" 2>/dev/null || echo "not run")
  echo; echo "==== first pass: the English lessons and docs notebooks (nbval, machine at 4x load) ===="
  cat "$results/lessons.log"
  lessons_status=$(cat "$results/lessons.status" 2>/dev/null || echo "not run")
  echo; echo "==== first pass: the grader's property and hostile tests (a reference and two right answers per exercise idle and busy, every reference on 10 seeds, the hostile submissions) ===="
  cat "$results/property.log"
  property_status=$(cat "$results/property.status" 2>/dev/null || echo "not run")
fi
if [ "$first_status" != 0 ] || [ "$second_status" != 0 ] || [ "$browser_status" != 0 ] \
    || [ "$lessons_status" != 0 ] || [ "$property_status" != 0 ]; then
  echo "FAIL: exit status of the unit tests $first_status, second pass $second_status," \
    "browser tests $browser_status, English notebooks $lessons_status," \
    "property tests $property_status"
  exit 1
fi

# Nothing the suite ran may leave files in the repository or a PostgreSQL server behind.
after=$(git status --porcelain 2>/dev/null || true)
if [ "$before" != "$after" ]; then
  echo "FAIL: the test run changed the repository:"; diff <(echo "$before") <(echo "$after") || true
  exit 1
fi
sleep 1
if pgrep -f "postgres.*$run_tmp" >/dev/null; then
  echo "FAIL: a PostgreSQL server started by the tests is still running:"; pgrep -af "postgres.*$run_tmp"
  exit 1
fi
leftover=$(find "$run_tmp" \( -name PG_VERSION -o -name 'pgdata-*' \) 2>/dev/null || true)
if [ -n "$leftover" ]; then
  echo "FAIL: the test run left PostgreSQL data folders behind:"; echo "$leftover"
  exit 1
fi
# cleanup (trap on EXIT) prints the closing count and removes the run's scratch.
