#!/usr/bin/env bash
# A throwaway PostgreSQL server from Debian's packages (not the one the course embeds), so that
# the lessons and tests can be checked against "a server the course did not start".
#
#   dir=$(mktemp -d)
#   url=$(bash scripts/system_postgres.sh start "$dir")   # prints the URL, nothing else
#   ADKCOURSE_POSTGRES_URL="$url" .venv/bin/python -m pytest ...
#   bash scripts/system_postgres.sh stop "$dir"             # stops the server, deletes $dir
#
# `start` uses /usr/lib/postgresql/15/bin (or $PG_BIN, or the newest version installed) and
# installs the `postgresql` package with apt-get when no server binaries are found. It runs
# initdb and pg_ctl in DIR as an unprivileged user (PostgreSQL refuses to run as root: the
# `postgres` user, else `nobody`), listening on 127.0.0.1 on a free port and on a unix socket in
# DIR. It creates the role `adkcourse` with a random password and the CREATEDB right only (what
# the course needs: each lesson creates its own database), and prints
# postgresql://adkcourse:PASSWORD@127.0.0.1:PORT/postgres. The password is also in DIR/url.
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
log() { echo "system_postgres: $*" >&2; }

[[ $# -eq 2 ]] || usage
action=$1
dir=$2

find_bin() {
  if [[ -n "${PG_BIN:-}" ]]; then echo "$PG_BIN"; return; fi
  if [[ -x /usr/lib/postgresql/15/bin/postgres ]]; then echo /usr/lib/postgresql/15/bin; return; fi
  local newest
  newest=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  [[ -n "$newest" && -x "$newest/postgres" ]] && echo "$newest"
}

install_server() {
  # Install Debian's server package without letting it start a cluster of its own.
  [[ $(id -u) -eq 0 ]] || { log "no PostgreSQL server binaries, and not root to install them"; exit 1; }
  log "installing Debian's postgresql package"
  local policy=/usr/sbin/policy-rc.d created=0
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod 755 "$policy" && created=1
  fi
  local status=0
  { DEBIAN_FRONTEND=noninteractive apt-get update -qq \
      && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql; } \
      >&2 || status=$?
  [[ $created -eq 1 ]] && rm -f "$policy"
  return $status
}

# The user the server runs as, and how to run a command as that user.
if [[ $(id -u) -eq 0 ]]; then
  if id postgres >/dev/null 2>&1; then run_user=postgres; else run_user=nobody; fi
  as_user() { runuser -u "$run_user" -- "$@"; }
else
  run_user=$(id -un)
  as_user() { "$@"; }
fi

stop_server() {
  [[ -d "$dir" ]] || return 0
  local bin
  bin=$(cat "$dir/bin" 2>/dev/null || find_bin || true)
  if [[ -f "$dir/data/postmaster.pid" && -n "$bin" ]]; then
    as_user "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >&2 \
      || as_user "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop >&2 || true
  fi
  rm -rf "$dir"
}

free_port() {
  local port tries
  for tries in $(seq 1 50); do
    port=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return; fi
  done
  log "no free port found"; exit 1
}

start_server() {
  local bin port password
  bin=$(find_bin || true)
  if [[ -z "$bin" ]]; then
    install_server
    bin=$(find_bin || true)
    [[ -n "$bin" ]] || { log "PostgreSQL server binaries still missing after install"; exit 1; }
  fi
  mkdir -p "$dir"
  [[ -z "$(ls -A "$dir")" ]] || { log "$dir is not empty"; exit 1; }
  mkdir "$dir/sock"
  [[ $(id -u) -eq 0 ]] && chown -R "$run_user" "$dir"
  chmod 700 "$dir" "$dir/sock"
  echo "$bin" > "$dir/bin"

  # trust on the unix socket (only $run_user can reach it: the folder is 0700); passwords on TCP.
  as_user "$bin/initdb" -D "$dir/data" -U postgres -E UTF8 --locale=C --no-sync \
    --auth-local=trust --auth-host=scram-sha-256 >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; exit 1; }
  port=$(free_port)
  as_user "$bin/pg_ctl" -D "$dir/data" -l "$dir/data/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories=$dir/sock -c fsync=off" \
    start >&2 || { cat "$dir/data/server.log" >&2 || true; exit 1; }

  password=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
  as_user "$bin/psql" -h "$dir/sock" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 -q \
    -c "CREATE ROLE adkcourse LOGIN CREATEDB PASSWORD '$password'" >&2
  local url="postgresql://adkcourse:$password@127.0.0.1:$port/postgres"
  (umask 077; echo "$url" > "$dir/url")
  log "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') running as $run_user on 127.0.0.1:$port"
  echo "$url"
}

case "$action" in
  start) start_server ;;
  stop) stop_server ;;
  *) usage ;;
esac
