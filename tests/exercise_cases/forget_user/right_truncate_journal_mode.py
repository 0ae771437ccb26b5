"""Deletes and VACUUMs with journal_mode TRUNCATE on its own connection: an empty -journal stays, holding nothing."""

import os, shutil, sqlite3, tempfile, unicodedata
from contextlib import closing

# RIGHT?: journal_mode=TRUNCATE on this connection (rollback files): the journal is emptied
# rather than deleted after each transaction, so a 0-byte tutor.db-journal stays.
async def forget_user(service, db_path, app_name, user_id):
  with closing(sqlite3.connect(db_path)) as c:
    mode = c.execute("PRAGMA journal_mode").fetchone()[0]
    if mode != "wal":
      c.execute("PRAGMA journal_mode=TRUNCATE").fetchall()
    for t in ("events", "sessions", "user_states"):
      c.execute(f"DELETE FROM {t} WHERE app_name = ? AND user_id = ?", (app_name, user_id))
    c.commit()
    c.execute("VACUUM")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
