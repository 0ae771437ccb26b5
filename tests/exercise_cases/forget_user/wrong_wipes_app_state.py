"""Also clears the app's state, which the user's events wrote to: app state is everyone's."""

import sqlite3
from contextlib import closing

LOSES = ('other_users_untouched',)  # the app's state is every user's of the app


async def forget_user(service, db_path, app_name, user_id):
  listed = await service.list_sessions(app_name=app_name, user_id=user_id)
  for session in listed.sessions:
    await service.delete_session(app_name=app_name, user_id=user_id, session_id=session.id)
  with closing(sqlite3.connect(db_path)) as connection:
    connection.execute("DELETE FROM user_states WHERE app_name = ? AND user_id = ?",
                       (app_name, user_id))
    connection.execute("DELETE FROM app_states WHERE app_name = ?", (app_name,))
    connection.commit()
    connection.execute("VACUUM")
