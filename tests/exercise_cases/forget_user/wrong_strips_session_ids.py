"""Strips each session id before deleting: a migrated file's padded id stays, with its events (blind round of 3 December)."""

LOSES = ('sessions_removed',)

import sqlite3
import os
import shutil
import tempfile
import unicodedata
from contextlib import closing

async def forget_user(service, db_path: str, app_name: str, user_id: str) -> None:
  """WRONG (subtle): deletes each session by its id with .strip() applied 'for safety':
  padded session ids (' s1') are not matched, and a same-user session 's1' is deleted
  twice while ' s1' and its events stay."""
  with closing(sqlite3.connect(db_path)) as c:
    c.execute("PRAGMA foreign_keys = ON")
    ids = [r[0] for r in c.execute(
        "SELECT id FROM sessions WHERE app_name=? AND user_id=?", (app_name, user_id))]
    for sid in ids:
      c.execute("DELETE FROM sessions WHERE app_name=? AND user_id=? AND id=?",
                (app_name, user_id, sid.strip()))
    c.execute("DELETE FROM user_states WHERE app_name=? AND user_id=?", (app_name, user_id))
    c.commit()
    c.execute("VACUUM")
    if c.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal":
      c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
