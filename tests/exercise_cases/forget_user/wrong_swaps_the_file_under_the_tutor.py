"""Builds a clean copy without the user and swaps it in under the running tutor: its open
connection keeps the old file (the erased data with it) and a stale -wal is left beside the new
one."""

import os
import sqlite3
from contextlib import closing


async def forget_user(service, db_path, app_name, user_id):
  clean = db_path + ".clean"
  with closing(sqlite3.connect(db_path)) as source, closing(sqlite3.connect(clean)) as copy:
    source.backup(copy)
  with closing(sqlite3.connect(clean)) as copy:
    copy.execute("PRAGMA foreign_keys = ON")
    copy.execute("DELETE FROM sessions WHERE app_name = ? AND user_id = ?", (app_name, user_id))
    copy.execute("DELETE FROM user_states WHERE app_name = ? AND user_id = ?", (app_name, user_id))
    copy.commit()
    copy.execute("VACUUM")
  os.replace(clean, db_path)
