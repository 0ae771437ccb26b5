"""Sets PRAGMA page_size = 4096 before VACUUM (a tuning snippet), which rewrites a file of another page size: the file's format is not ADK's any more."""
import os, sqlite3
from contextlib import closing

LOSES = ("file_stays_adks",)


def _delete(con, app_name, user_id):
  with con:
    for t in ("events", "sessions", "user_states"):
      con.execute(f"DELETE FROM {t} WHERE app_name=? AND user_id=?", (app_name, user_id))

def _wal(con):
  return con.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal"

async def forget_user(service, db_path: str, app_name: str, user_id: str) -> None:
  with closing(sqlite3.connect(db_path)) as con:
    _delete(con, app_name, user_id)
    con.execute("PRAGMA page_size=4096")
    con.execute("VACUUM")
    if _wal(con):
      con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
