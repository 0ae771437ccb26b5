"""Strips the user id before matching: a padded id is not erased, and the unpadded user is."""

import os, shutil, sqlite3, tempfile, unicodedata
from contextlib import closing

# WRONG: strips the user id it is given (" ada " is then never found).
async def forget_user(service, db_path, app_name, user_id):
  user_id = user_id.strip()
  with closing(sqlite3.connect(db_path)) as c:
    for t in ("events", "sessions", "user_states"):
      c.execute(f"DELETE FROM {t} WHERE app_name = ? AND user_id = ?", (app_name, user_id))
    c.commit()
    c.execute("VACUUM")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
