"""Drops the tables that hold the user: no trace left, but nobody else's either."""

import sqlite3
from contextlib import closing

LOSES = ('other_users_untouched',)


async def forget_user(service, db_path, app_name, user_id):
  with closing(sqlite3.connect(db_path)) as connection:
    connection.executescript("DROP TABLE events; DROP TABLE sessions; DROP TABLE user_states;")
    connection.execute("VACUUM")
