"""Deletes and VACUUMs with journal_mode MEMORY on its own connection, then checkpoints: no journal file at all."""

import sqlite3
from contextlib import closing
# RIGHT: journal kept in memory on this connection (rollback files): no -journal file at all.
async def forget_user(service, db_path, app_name, user_id):
  with closing(sqlite3.connect(db_path)) as c:
    if c.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
      c.execute("PRAGMA journal_mode=MEMORY").fetchall()
    for t in ("events", "sessions", "user_states"):
      c.execute(f"DELETE FROM {t} WHERE app_name = ? AND user_id = ?", (app_name, user_id))
    c.commit()
    c.execute("VACUUM")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
