"""Keeps a safety copy of the file in $TMPDIR before erasing: the user's data is left in that copy."""

import os, shutil, sqlite3, tempfile, unicodedata
from contextlib import closing

# WRONG: keeps a safety copy of the file (the user's data included) in the temp folder.
async def forget_user(service, db_path, app_name, user_id):
  backup = os.path.join(tempfile.gettempdir(), "tutor-before-erasure.db")
  with closing(sqlite3.connect(db_path)) as c, closing(sqlite3.connect(backup)) as b:
    c.backup(b)
  listed = await service.list_sessions(app_name=app_name, user_id=user_id)
  for session in listed.sessions:
    await service.delete_session(app_name=app_name, user_id=user_id, session_id=session.id)
  with closing(sqlite3.connect(db_path)) as c:
    c.execute("DELETE FROM user_states WHERE app_name = ? AND user_id = ?", (app_name, user_id))
    c.commit()
    c.execute("VACUUM")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
