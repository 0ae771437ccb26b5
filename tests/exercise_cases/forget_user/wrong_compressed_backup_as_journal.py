"""A right erasure that first keeps a zlib-compressed dump of the user's rows in "tutor.db-journal": no marker shows in its bytes, yet it is a copy."""

import json
import sqlite3
import zlib
from contextlib import closing

LOSES = ('no_trace_left',)


async def forget_user(service, db_path, app_name, user_id):
  with closing(sqlite3.connect(db_path)) as connection:
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
  with open(db_path + "-journal", "wb") as stream:  # after SQLite is done with it
    stream.write(zlib.compress(json.dumps(rows).encode()))
