"""Deletes each of the user's sessions by its id alone: other users' sessions with the same id ("default") go too."""

import sqlite3
from contextlib import closing


async def forget_user(service, db_path, app_name, user_id):
  listed = await service.list_sessions(app_name=app_name, user_id=user_id)
  with closing(sqlite3.connect(db_path)) as connection:
    for session in listed.sessions:
      connection.execute("DELETE FROM events WHERE session_id = ?", (session.id,))
      connection.execute("DELETE FROM sessions WHERE id = ?", (session.id,))
    connection.execute("DELETE FROM user_states WHERE app_name = ? AND user_id = ?",
                       (app_name, user_id))
    connection.commit()
    connection.execute("VACUUM")
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
