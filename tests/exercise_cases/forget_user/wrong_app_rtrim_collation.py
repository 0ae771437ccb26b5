"""Matches the app with COLLATE RTRIM: the same user in an app whose name ends in a space goes too."""
import sqlite3
from contextlib import closing

async def forget_user(service, db_path, app_name, user_id):
  with closing(sqlite3.connect(db_path)) as c:
    for table in ("events", "sessions", "user_states"):
      c.execute(f"DELETE FROM {table} WHERE app_name = ? COLLATE RTRIM AND user_id = ?",
                (app_name, user_id))
    c.commit()
    c.execute("VACUUM")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
