"""Deletes the app's state when the user was its last with sessions: it is every user's (blind round of 3 December)."""

LOSES = ('other_users_untouched',)

import sqlite3
import os
import shutil
import tempfile
import unicodedata
from contextlib import closing

async def forget_user(service, db_path: str, app_name: str, user_id: str) -> None:
  """WRONG: also 'resets' the app: deletes the app_states row when the user was the app's
  last user (app state is not the user's)."""
  with closing(sqlite3.connect(db_path)) as c:
    c.execute("PRAGMA foreign_keys = ON")
    c.execute("DELETE FROM events WHERE app_name=? AND user_id=?", (app_name, user_id))
    c.execute("DELETE FROM sessions WHERE app_name=? AND user_id=?", (app_name, user_id))
    c.execute("DELETE FROM user_states WHERE app_name=? AND user_id=?", (app_name, user_id))
    left = c.execute("SELECT COUNT(*) FROM sessions WHERE app_name=?", (app_name,)).fetchone()[0]
    if left == 0:
      c.execute("DELETE FROM app_states WHERE app_name=?", (app_name,))
    c.commit()
    c.execute("VACUUM")
    if c.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal":
      c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
