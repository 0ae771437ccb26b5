"""VACUUM before committing the DELETE: it fails ("cannot VACUUM from within a transaction"),
and the uncommitted delete is rolled back when the connection closes."""

import sqlite3
from contextlib import closing

LOSES = ('user_state_removed', 'no_trace_left')


async def forget_user(service, db_path, app_name, user_id):
  listed = await service.list_sessions(app_name=app_name, user_id=user_id)
  for session in listed.sessions:
    await service.delete_session(app_name=app_name, user_id=user_id, session_id=session.id)
  with closing(sqlite3.connect(db_path)) as connection:
    connection.execute("DELETE FROM user_states WHERE app_name = ? AND user_id = ?",
                       (app_name, user_id))
    connection.execute("VACUUM")
    connection.commit()
