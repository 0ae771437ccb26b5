"""A right erasure, but it first copies the whole file into a sibling folder "to be safe"."""

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path


async def forget_user(service, db_path, app_name, user_id):
  backup = Path(db_path).parent.parent / "backups"
  backup.mkdir(exist_ok=True)
  shutil.copy(db_path, backup / f"before-{len(list(backup.iterdir()))}.db")
  listed = await service.list_sessions(app_name=app_name, user_id=user_id)
  for session in listed.sessions:
    await service.delete_session(app_name=app_name, user_id=user_id, session_id=session.id)
  with closing(sqlite3.connect(db_path)) as connection:
    connection.execute("DELETE FROM user_states WHERE app_name = ? AND user_id = ?",
                       (app_name, user_id))
    connection.commit()
    connection.execute("VACUUM")
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
