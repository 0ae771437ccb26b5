"""f-string SQL with double quotes, "safe" for o'brien: a double quote in the id breaks it."""

import sqlite3
from contextlib import closing

LOSES = ('sessions_removed', 'events_removed', 'user_state_removed')


async def forget_user(service, db_path, app_name, user_id):
  with closing(sqlite3.connect(db_path)) as connection:
    connection.execute("PRAGMA foreign_keys = ON")
    for table in ("sessions", "user_states"):
      connection.execute(f'DELETE FROM {table} WHERE app_name = "{app_name}" AND user_id = "{user_id}"')
    connection.commit()
    connection.execute("VACUUM")
