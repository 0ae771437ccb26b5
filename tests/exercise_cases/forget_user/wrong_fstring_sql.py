"""SQL built with f-strings: a user id with a quote breaks the statement (or worse)."""

import sqlite3
from contextlib import closing

LOSES = ('sessions_removed', 'events_removed', 'user_state_removed')


async def forget_user(service, db_path, app_name, user_id):
  with closing(sqlite3.connect(db_path)) as connection:
    connection.execute("PRAGMA foreign_keys = ON")
    connection.execute(f"DELETE FROM sessions WHERE app_name = '{app_name}' AND user_id = '{user_id}'")
    connection.execute(f"DELETE FROM user_states WHERE app_name = '{app_name}' AND user_id = '{user_id}'")
    connection.commit()
    connection.execute("VACUUM")
