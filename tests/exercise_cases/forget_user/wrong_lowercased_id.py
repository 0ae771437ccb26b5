"""Normalises the user id to lower case before deleting: a user whose id has capitals is not
erased, and a different user whose id is its lower-case form is."""

import sqlite3
from contextlib import closing

LOSES = ("sessions_removed", "other_users_untouched")


async def forget_user(service, db_path, app_name, user_id):
  user_id = user_id.strip().lower()
  listed = await service.list_sessions(app_name=app_name, user_id=user_id)
  for session in listed.sessions:
    await service.delete_session(app_name=app_name, user_id=user_id, session_id=session.id)
  with closing(sqlite3.connect(db_path)) as connection:
    connection.execute("DELETE FROM user_states WHERE app_name = ? AND user_id = ?",
                       (app_name, user_id))
    connection.commit()
    connection.execute("VACUUM")
