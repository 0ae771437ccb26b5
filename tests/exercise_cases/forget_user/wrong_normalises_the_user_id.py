"""Normalises the user id to NFC before matching: a decomposed id is not erased, its composed twin is."""

import sqlite3, unicodedata
from contextlib import closing
# WRONG: normalises the id it is given to NFC "so that it matches what was stored": a user
# stored with a decomposed accent is then never found (and the composed twin would be erased).
async def forget_user(service, db_path, app_name, user_id):
  user_id = unicodedata.normalize("NFC", user_id)
  listed = await service.list_sessions(app_name=app_name, user_id=user_id)
  for session in listed.sessions:
    await service.delete_session(app_name=app_name, user_id=user_id, session_id=session.id)
  with closing(sqlite3.connect(db_path)) as c:
    c.execute("DELETE FROM user_states WHERE app_name = ? AND user_id = ?", (app_name, user_id))
    c.commit()
    c.execute("VACUUM")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
