"""Filters on user_id only: the same id in other apps (another user there) is erased too."""

import sqlite3
from contextlib import closing

LOSES = ('other_apps_untouched',)


async def forget_user(service, db_path, app_name, user_id):
  with closing(sqlite3.connect(db_path)) as connection:
    connection.execute("PRAGMA foreign_keys = ON")
    connection.execute("DELETE FROM sessions WHERE user_id = ?", (user_id,))
    connection.execute("DELETE FROM user_states WHERE user_id = ?", (user_id,))
    connection.commit()
    connection.execute("VACUUM")
