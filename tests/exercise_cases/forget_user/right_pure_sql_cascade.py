"""Pure SQL in one transaction, events removed by the foreign key's ON DELETE CASCADE."""

import sqlite3


async def forget_user(service, db_path, app_name, user_id):
  connection = sqlite3.connect(db_path, isolation_level=None)  # autocommit: explicit BEGIN
  try:
    connection.execute("PRAGMA foreign_keys = ON")
    connection.execute("BEGIN")
    connection.execute("DELETE FROM sessions WHERE app_name = :app AND user_id = :user",
                       {"app": app_name, "user": user_id})
    connection.execute("DELETE FROM user_states WHERE app_name = :app AND user_id = :user",
                       {"app": app_name, "user": user_id})
    connection.execute("COMMIT")
    connection.execute("VACUUM")
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
  finally:
    connection.close()
