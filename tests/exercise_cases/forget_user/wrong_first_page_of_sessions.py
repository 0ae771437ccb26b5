"""A page of 100 sessions, never the next: a user with more keeps the rest (blind round of 3 December)."""

LOSES = ('sessions_removed',)

import sqlite3
import os
import shutil
import tempfile
import unicodedata
from contextlib import closing

async def forget_user(service, db_path: str, app_name: str, user_id: str) -> None:
  """WRONG (large worlds only): fetches the user's sessions 'a page at a time' but only the
  first page of 100; a user with more than 100 sessions keeps the rest (and their events)."""
  with closing(sqlite3.connect(db_path)) as c:
    c.execute("PRAGMA foreign_keys = ON")
    ids = [r[0] for r in c.execute(
        "SELECT id FROM sessions WHERE app_name=? AND user_id=? ORDER BY update_time LIMIT 100",
        (app_name, user_id))]
    for sid in ids:
      c.execute("DELETE FROM sessions WHERE app_name=? AND user_id=? AND id=?",
                (app_name, user_id, sid))
    c.execute("DELETE FROM user_states WHERE app_name=? AND user_id=?", (app_name, user_id))
    c.commit()
    c.execute("VACUUM")
    if c.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal":
      c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
