"""Matches trim(user_id) = trim(?): also erases the user whose id is the same but padded with spaces."""

import os, shutil, sqlite3, tempfile, unicodedata
from contextlib import closing

# WRONG: matches ids "defensively" with trim(): also erases "ada" when asked for " ada ".
async def forget_user(service, db_path, app_name, user_id):
  with closing(sqlite3.connect(db_path)) as c:
    for t in ("events", "sessions", "user_states"):
      c.execute(f"DELETE FROM {t} WHERE app_name = ? AND trim(user_id) = trim(?)",
                (app_name, user_id))
    c.commit()
    c.execute("VACUUM")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
