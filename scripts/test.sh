#!/usr/bin/env bash
# The whole test suite: static checks, unit tests, then every lesson notebook under nbval.
# Usage: bash scripts/test.sh   (after `pip install -r requirements.txt` in .venv)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
$PY -m pytest tests notebooks docs --nbval --nbval-current-env \
  --nbval-sanitize-with tests/sanitize.cfg -p no:cacheprovider "$@"
