"""Pure SQL, every table by name (no cascade needed), then VACUUM from a fresh connection."""

import sqlite3
from contextlib import closing

TABLES = ("events", "sessions", "user_states")


async def forget_user(service, db_path, app_name, user_id):
  with closing(sqlite3.connect(db_path)) as connection:
    with connection:  # one transaction, committed on success
      for table in TABLES:
        connection.execute(f"DELETE FROM {table} WHERE app_name = ? AND user_id = ?",
                           (app_name, user_id))
  with closing(sqlite3.connect(db_path)) as connection:
    connection.execute("VACUUM")
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
