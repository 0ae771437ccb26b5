"""Sessions deleted through a second SqliteSessionService on the same file, then SQL and VACUUM."""

import sqlite3
from contextlib import closing

from google.adk.sessions.sqlite_session_service import SqliteSessionService


async def forget_user(service, db_path, app_name, user_id):
  mine = SqliteSessionService(db_path)
  for session in (await mine.list_sessions(app_name=app_name, user_id=user_id)).sessions:
    await mine.delete_session(app_name=app_name, user_id=user_id, session_id=session.id)
  with closing(sqlite3.connect(db_path)) as connection:
    connection.execute("DELETE FROM user_states WHERE user_id = ? AND app_name = ?",
                       (user_id, app_name))
    connection.commit()
    connection.execute("VACUUM")
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
