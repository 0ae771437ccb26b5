"""A right erasure that returns a count of deleted rows: the contract returns None."""

import os, shutil, sqlite3, tempfile, unicodedata
from contextlib import closing

# WRONG (contract: returns None): returns how many rows it erased.
async def forget_user(service, db_path, app_name, user_id):
  with closing(sqlite3.connect(db_path)) as c:
    n = 0
    for t in ("events", "sessions", "user_states"):
      n += c.execute(f"DELETE FROM {t} WHERE app_name = ? AND user_id = ?", (app_name, user_id)).rowcount
    c.commit()
    c.execute("VACUUM")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
  return {"deleted_rows": n}
