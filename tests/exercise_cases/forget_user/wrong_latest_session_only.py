"""Deletes only the latest session (sessions[-1]), as if a user had one conversation."""

import sqlite3
from contextlib import closing

LOSES = ('sessions_removed',)


async def forget_user(service, db_path, app_name, user_id):
  listed = await service.list_sessions(app_name=app_name, user_id=user_id)
  if listed.sessions:
    latest = listed.sessions[-1]
    await service.delete_session(app_name=app_name, user_id=user_id, session_id=latest.id)
  with closing(sqlite3.connect(db_path)) as connection:
    connection.execute("DELETE FROM user_states WHERE app_name = ? AND user_id = ?",
                       (app_name, user_id))
    connection.commit()
    connection.execute("VACUUM")
