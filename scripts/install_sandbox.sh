#!/usr/bin/env bash
# Make sure the grader's sandbox can run here: bubblewrap (Debian package `bubblewrap`) and,
# for a grader running as root, util-linux's `setpriv`. Installs what is missing with apt-get
# (as scripts/system_postgres.sh does for PostgreSQL), then checks that bwrap really creates
# its namespaces on this machine. Prints the bwrap version; exit 1, with what to do, if not.
#
#   bash scripts/install_sandbox.sh
set -euo pipefail

log() { echo "install_sandbox: $*" >&2; }

install() {
  if [[ $(id -u) -ne 0 ]]; then
    log "missing: $*; run as root or: sudo apt-get install $*"; exit 1
  fi
  command -v apt-get >/dev/null || { log "missing: $*; no apt-get here: use your package manager"; exit 1; }
  log "installing $*"
  { DEBIAN_FRONTEND=noninteractive apt-get update -qq \
      && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"; } >&2
}

command -v bwrap >/dev/null || install bubblewrap
if [[ $(id -u) -eq 0 ]] && ! command -v setpriv >/dev/null; then install util-linux; fi

# The same namespaces the grader asks for (as root: also an unprivileged user's namespace).
err=$(mktemp)
trap 'rm -f "$err"' EXIT
probe=(bwrap --unshare-all --die-with-parent --new-session --ro-bind / / --proc /proc --dev /dev true)
if ! "${probe[@]}" 2>"$err"; then
  log "bwrap is installed but cannot create namespaces here: $(cat "$err")"
  log "allow user namespaces (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu 24.04"
  log "kernel.apparmor_restrict_unprivileged_userns=0), or grade in a VM; see docs/instructors.md"
  exit 1
fi
if [[ $(id -u) -eq 0 ]] && ! setpriv --reuid=65534 --regid=65534 --clear-groups -- \
    bwrap --unshare-user --unshare-pid --ro-bind / / --proc /proc true 2>"$err"; then
  log "an unprivileged user cannot create a user namespace: $(cat "$err")"
  exit 1
fi
bwrap --version
