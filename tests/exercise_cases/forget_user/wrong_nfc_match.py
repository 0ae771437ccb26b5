"""Erases every id with the same NFC form: a user whose id differs only by how an accent is encoded goes too."""

import os, shutil, sqlite3, tempfile, unicodedata
from contextlib import closing

# WRONG: treats ids that look the same (same NFC form) as the same user: erases
# "zoe\u0301" (decomposed) together with "zo\u00e9" (composed), another user.
async def forget_user(service, db_path, app_name, user_id):
  want = unicodedata.normalize("NFC", user_id)
  with closing(sqlite3.connect(db_path)) as c:
    ids = {r[0] for t in ("sessions", "user_states")
           for r in c.execute(f"SELECT DISTINCT user_id FROM {t} WHERE app_name = ?", (app_name,))}
    for uid in ids:
      if unicodedata.normalize("NFC", uid) == want:
        for t in ("events", "sessions", "user_states"):
          c.execute(f"DELETE FROM {t} WHERE app_name = ? AND user_id = ?", (app_name, uid))
    c.commit()
    c.execute("VACUUM")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
