"""A right erasure whose compressed copy of the user's rows goes into "tutor.db-wal" (in WAL files the reference leaves an empty one there, in others none)."""

import json
import lzma
import sqlite3
from contextlib import closing

LOSES = ('no_trace_left',)


async def forget_user(service, db_path, app_name, user_id):
  with closing(sqlite3.connect(db_path)) as connection:
    mode = connection.execute("PRAGMA journal_mode").fetchone()[0]
    rows = [list(map(str, row)) for table in ("sessions", "events", "user_states")
            for row in connection.execute(f"SELECT * FROM {table} WHERE app_name = ? AND "
                                          "user_id = ?", (app_name, user_id))]
    connection.execute("PRAGMA foreign_keys = ON")
    connection.execute("DELETE FROM sessions WHERE app_name = ? AND user_id = ?",
                       (app_name, user_id))
    connection.execute("DELETE FROM user_states WHERE app_name = ? AND user_id = ?",
                       (app_name, user_id))
    connection.commit()
    connection.execute("VACUUM")
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
  name = db_path + ("-wal" if mode == "wal" else "-journal")
  with open(name, "wb") as stream:  # SQLite ignores a log that does not start with its magic
    stream.write(lzma.compress(json.dumps(rows).encode()))
