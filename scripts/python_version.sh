#!/usr/bin/env bash
# Print the path of a Python interpreter of version X.Y (default 3.13), for CI's second run of
# the suite (.ci/run) or for anyone who wants to try the course on that version.
#
#   bash scripts/python_version.sh [--shared] [3.13]
#
# --shared (for CI, run as root): the interpreter must also run for an unprivileged user, as the
# Gradescope tests run submissions (tests/test_gradescope.py). pyenv's builds live under /root,
# which no other user may enter, so as root a candidate counts only if `nobody` can run it, and
# the build of our own goes to /opt/adkcourse/python-X.Y instead of ~/.cache.
#
# Looks, in order, for `pythonX.Y` on PATH, a pyenv build (~/.pyenv/versions/X.Y.*), and a
# build of our own from an earlier call (~/.cache/adkcourse/python-X.Y). With none of them, it
# builds CPython from source: the source tarball comes from Debian's package archive (Debian 13
# ships Python 3.13; `python3.13_*.orig.tar.xz` is python.org's release, byte for byte), with
# the compiler and headers from apt-get. About 5 minutes on 2 cores (6 on a busy machine); progress goes to stderr.
# Exit 1 with the reason when no interpreter can be found or made.
set -euo pipefail

shared=0
if [ "${1:-}" = "--shared" ]; then shared=1; shift; fi
version=${1:-3.13}
log() { echo "python_version: $*" >&2; }
modules="import ssl, sqlite3, ctypes, lzma, bz2, zlib, venv"
as_nobody() { (cd / && setpriv --reuid=65534 --regid=65534 --clear-groups "$@"); }
works() {
  "$1" -c "$modules" 2>/dev/null || return 1
  if [ "$shared" = 1 ] && [ "$(id -u)" -eq 0 ]; then as_nobody "$1" -c "$modules" 2>/dev/null; fi
}

candidates=()
command -v "python$version" >/dev/null && candidates+=("$(command -v "python$version")")
for found in "$HOME"/.pyenv/versions/"$version".*/bin/python3; do
  [ -x "$found" ] && candidates+=("$found")
done
cache=${XDG_CACHE_HOME:-$HOME/.cache}/adkcourse/python-$version
if [ "$shared" = 1 ] && [ "$(id -u)" -eq 0 ]; then
  command -v setpriv >/dev/null || { log "--shared needs setpriv (util-linux)"; exit 1; }
  cache=/opt/adkcourse/python-$version
fi
candidates+=("$cache/bin/python3")
for candidate in "${candidates[@]}"; do
  if [ -x "$candidate" ] && works "$candidate"; then echo "$candidate"; exit 0; fi
done

# Build it. Debian's source index says which tarball holds this version.
log "no Python $version here: building one in $cache from Debian's source archive"
archive=http://deb.debian.org/debian
index=$(mktemp -d)
trap 'rm -rf "$index"' EXIT
curl -fsS --retry 3 "$archive/dists/trixie/main/source/Sources.xz" | xz -d >"$index/Sources" \
  || { log "cannot read $archive/dists/trixie/main/source/Sources.xz"; exit 1; }
tarball=$(awk -v pkg="python$version" '
  $1 == "Package:" { inside = ($2 == pkg) }
  inside && $1 == "Directory:" { dir = $2 }
  inside && /orig\.tar\.xz$/ && !file { file = $3 }
  inside && /^$/ && file { print dir "/" file; exit }' "$index/Sources")
[ -n "$tarball" ] || { log "Debian's trixie has no source package python$version"; exit 1; }
if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
  log "installing the build's compiler and headers with apt-get"
  packages=(build-essential libssl-dev libsqlite3-dev libffi-dev zlib1g-dev libbz2-dev liblzma-dev
            libreadline-dev libncurses-dev)
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null 2>&1 || {
    apt-get update -qq >/dev/null 2>&1
    apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null; }
fi
log "downloading $archive/$tarball"
curl -fsS --retry 3 -o "$index/source.tar.xz" "$archive/$tarball"
tar -xJf "$index/source.tar.xz" -C "$index"
source_dir=$(find "$index" -mindepth 1 -maxdepth 1 -type d -name 'Python-*' | head -1)
[ -n "$source_dir" ] || source_dir=$(find "$index" -mindepth 1 -maxdepth 1 -type d | head -1)
mkdir -p "$cache" && chmod 755 "$(dirname "$cache")" "$cache"
log "configuring and compiling $(basename "$source_dir") (make -j$(nproc); about 5 minutes)"
(cd "$source_dir" && ./configure --prefix="$cache" --without-ensurepip >"$index/build.log" 2>&1 \
  && make -j"$(nproc)" >>"$index/build.log" 2>&1 && make install >>"$index/build.log" 2>&1) || {
  log "the build failed; the end of its log:"; tail -20 "$index/build.log" >&2; exit 1; }
# --without-ensurepip: venv's pip comes from the wheel that ensurepip bundles; install it so.
"$cache/bin/python3" -m ensurepip --default-pip >/dev/null 2>&1 || true
works "$cache/bin/python3" || { log "the new build misses a module (ssl, sqlite3, ctypes...)"; exit 1; }
echo "$cache/bin/python3"
