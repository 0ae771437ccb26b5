"""Rebuilds each table with CREATE TABLE ... AS SELECT the rows to keep: the keys and indexes are lost."""

import sqlite3
from contextlib import closing


async def forget_user(service, db_path, app_name, user_id):
  with closing(sqlite3.connect(db_path)) as connection:
    for table in ("events", "sessions", "user_states"):
      connection.execute(f"CREATE TABLE keep_{table} AS SELECT * FROM {table} "
                         "WHERE NOT (app_name = ? AND user_id = ?)", (app_name, user_id))
      connection.execute(f"DROP TABLE {table}")
      connection.execute(f"ALTER TABLE keep_{table} RENAME TO {table}")
    connection.commit()
    connection.execute("VACUUM")
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
