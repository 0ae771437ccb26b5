#!/usr/bin/env bash
# Make sure the browser tests (tests/browser) have a Chromium: Debian's `chromium` package,
# driven by Playwright from pip (Playwright's own browser download needs a network this CI does
# not have). Installs it with apt-get when missing, as scripts/system_postgres.sh does for
# PostgreSQL, then checks it starts headless with the flags the tests use. Prints its path and
# version; exit 1, with what to do, if it cannot run.
#
#   bash scripts/install_chromium.sh
set -euo pipefail

log() { echo "install_chromium: $*" >&2; }

find_chromium() { command -v chromium || command -v chromium-browser || true; }

if [[ -z "$(find_chromium)" ]]; then
  if [[ $(id -u) -ne 0 ]]; then
    log "no chromium; run as root or: sudo apt-get install chromium"; exit 1
  fi
  command -v apt-get >/dev/null || { log "no chromium and no apt-get: install Chromium"; exit 1; }
  log "installing Debian's chromium package"
  { DEBIAN_FRONTEND=noninteractive apt-get update -qq \
      && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >&2
fi
chromium=$(find_chromium)
profile=$(mktemp -d)
trap 'rm -rf "$profile" "$profile.err"' EXIT
if ! version=$(timeout 60 "$chromium" --no-sandbox --headless --disable-gpu \
    --disable-background-networking --disable-component-update --disable-sync --no-first-run \
    --user-data-dir="$profile" --version 2>"$profile.err"); then
  log "$chromium does not start: $(cat "$profile.err")"; rm -f "$profile.err"; exit 1
fi
echo "$chromium: $version"
