"""The judge's guard on SQLite files a submission left: ADK's session schema and full-text
tables pass (the module named across lines too), anything that runs code on read does not."""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest
from google.adk.sessions.sqlite_session_service import SqliteSessionService

from adkcourse.grade.safe_sqlite import UntrustedDatabase, check_schema


async def test_adk_session_files_and_full_text_tables_pass(tmp_path):
  sessions = SqliteSessionService(str(tmp_path / "sessions.db"))
  await sessions.create_session(app_name="a", user_id="u", state={"user:k": 1})
  with closing(sqlite3.connect(tmp_path / "sessions.db")) as connection:
    check_schema(connection, "sessions.db")
  with closing(sqlite3.connect(tmp_path / "fts.db")) as connection:
    connection.execute("CREATE VIRTUAL TABLE IF NOT EXISTS memory_events_fts\n  USING fts5(x)")
    check_schema(connection, "fts.db")  # the module name found across lines


@pytest.mark.parametrize("statement", [
    "CREATE TRIGGER t AFTER INSERT ON events BEGIN DELETE FROM events; END",
    "CREATE VIEW v AS SELECT * FROM events",
    "CREATE VIRTUAL TABLE r USING rtree(id, a, b)",
    "CREATE TABLE g (x TEXT, y TEXT GENERATED ALWAYS AS (printf('%.*c', 400000000, 'x')))",
])
def test_code_that_runs_on_read_is_refused(tmp_path, statement):
  with closing(sqlite3.connect(tmp_path / "evil.db")) as connection:
    connection.execute("CREATE TABLE events (id TEXT)")
    connection.execute(statement)
    with pytest.raises(UntrustedDatabase):
      check_schema(connection, "evil.db")
