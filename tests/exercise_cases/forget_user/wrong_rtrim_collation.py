"""Matches user_id = ? COLLATE RTRIM: trailing spaces are ignored, so a look-alike user is erased too."""

import os, shutil, sqlite3, tempfile, unicodedata
from contextlib import closing

# WRONG: SQL  user_id = ?  on a column compared with RTRIM collation: "ada " is "ada".
async def forget_user(service, db_path, app_name, user_id):
  with closing(sqlite3.connect(db_path)) as c:
    for t in ("events", "sessions", "user_states"):
      c.execute(f"DELETE FROM {t} WHERE app_name = ? AND user_id = ? COLLATE RTRIM",
                (app_name, user_id))
    c.commit()
    c.execute("VACUUM")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
