"""user_id LIKE ? without %: '_' in ada_42 is a wildcard that also matches adax42."""

import sqlite3
from contextlib import closing

LOSES = ('other_users_untouched',)


async def forget_user(service, db_path, app_name, user_id):
  with closing(sqlite3.connect(db_path)) as connection:
    connection.execute("PRAGMA foreign_keys = ON")
    for table in ("sessions", "user_states"):
      connection.execute(f"DELETE FROM {table} WHERE app_name = ? AND user_id LIKE ?",
                         (app_name, user_id))
    connection.commit()
    connection.execute("VACUUM")
