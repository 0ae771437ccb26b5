"""Keeps a backup of the file "just in case" before erasing: the copy holds everything."""

import shutil
import sqlite3
from contextlib import closing

LOSES = ('no_trace_left',)


async def forget_user(service, db_path, app_name, user_id):
  shutil.copy(db_path, db_path + ".bak")
  listed = await service.list_sessions(app_name=app_name, user_id=user_id)
  for session in listed.sessions:
    await service.delete_session(app_name=app_name, user_id=user_id, session_id=session.id)
  with closing(sqlite3.connect(db_path)) as connection:
    connection.execute("DELETE FROM user_states WHERE app_name = ? AND user_id = ?",
                       (app_name, user_id))
    connection.commit()
    connection.execute("VACUUM")
