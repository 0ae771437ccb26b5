"""Case-insensitive match (lower() on both sides): ADA_42 is another user, erased too."""

import sqlite3
from contextlib import closing

LOSES = ('other_users_untouched',)


async def forget_user(service, db_path, app_name, user_id):
  with closing(sqlite3.connect(db_path)) as connection:
    connection.execute("PRAGMA foreign_keys = ON")
    for table in ("sessions", "user_states"):
      connection.execute(f"DELETE FROM {table} WHERE app_name = ? AND lower(user_id) = lower(?)",
                         (app_name, user_id))
    connection.commit()
    connection.execute("VACUUM")
