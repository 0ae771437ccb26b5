"""A right erasure, then a gzip copy of the whole file written as "tutor.db-shm" (or appended to the real one): the name is SQLite's, the bytes are a backup."""

import gzip
import os
import sqlite3
from contextlib import closing

LOSES = ('no_trace_left',)


async def forget_user(service, db_path, app_name, user_id):
  with open(db_path, "rb") as stream:
    backup = gzip.compress(stream.read())
  with closing(sqlite3.connect(db_path)) as connection:
    connection.execute("PRAGMA foreign_keys = ON")
    connection.execute("DELETE FROM sessions WHERE app_name = ? AND user_id = ?",
                       (app_name, user_id))
    connection.execute("DELETE FROM user_states WHERE app_name = ? AND user_id = ?",
                       (app_name, user_id))
    connection.commit()
    connection.execute("VACUUM")
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
  shm = db_path + "-shm"
  with open(shm, "ab" if os.path.exists(shm) else "wb") as stream:
    stream.write(backup)
