"""Everything in SQL, one parameterised statement per table (events first), then VACUUM and a checkpoint."""

import sqlite3


async def forget_user(service, db_path, app_name, user_id):
  connection = sqlite3.connect(db_path, isolation_level=None)  # autocommit: VACUUM may run
  try:
    connection.execute("BEGIN")
    for table in ("events", "sessions", "user_states"):
      connection.execute(f"DELETE FROM {table} WHERE app_name = ? AND user_id = ?",
                         (app_name, user_id))
    connection.execute("COMMIT")
    connection.execute("VACUUM")
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
  finally:
    connection.close()
