"""Does the whole erasure, then raises "database is locked" (a failed call whatever it did)."""

import sqlite3
from contextlib import closing


async def forget_user(service, db_path, app_name, user_id):
  listed = await service.list_sessions(app_name=app_name, user_id=user_id)
  for session in listed.sessions:
    await service.delete_session(app_name=app_name, user_id=user_id, session_id=session.id)
  with closing(sqlite3.connect(db_path)) as connection:
    connection.execute("DELETE FROM user_states WHERE app_name = ? AND user_id = ?",
                       (app_name, user_id))
    connection.commit()
    connection.execute("VACUUM")
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
  raise sqlite3.OperationalError("database is locked")
