"""A right erasure that first copies the file to the hard-coded path /tmp/forget_user-backup.db (not $TMPDIR): outside the folders the call was given, it is still a copy."""

import shutil
import sqlite3
from contextlib import closing

LOSES = ('no_trace_left',)


async def forget_user(service, db_path, app_name, user_id):
  shutil.copyfile(db_path, "/tmp/forget_user-backup.db")
  with closing(sqlite3.connect(db_path)) as connection:
    connection.execute("PRAGMA foreign_keys = ON")
    connection.execute("DELETE FROM sessions WHERE app_name = ? AND user_id = ?",
                       (app_name, user_id))
    connection.execute("DELETE FROM user_states WHERE app_name = ? AND user_id = ?",
                       (app_name, user_id))
    connection.commit()
    connection.execute("VACUUM")
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
