"""Returns early when the user has no session: the user state of a user whose sessions are gone stays."""

import os, shutil, sqlite3, tempfile, unicodedata
from contextlib import closing

# WRONG: nothing to do when the user has no session left (their user state stays).
async def forget_user(service, db_path, app_name, user_id):
  listed = await service.list_sessions(app_name=app_name, user_id=user_id)
  if not listed.sessions:
    return
  for session in listed.sessions:
    await service.delete_session(app_name=app_name, user_id=user_id, session_id=session.id)
  with closing(sqlite3.connect(db_path)) as c:
    c.execute("DELETE FROM user_states WHERE app_name = ? AND user_id = ?", (app_name, user_id))
    c.commit()
    c.execute("VACUUM")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
