"""The service's API for sessions, aiosqlite (async, like ADK) for the row and the VACUUM."""

import aiosqlite


async def forget_user(service, db_path, app_name, user_id):
  listed = await service.list_sessions(app_name=app_name, user_id=user_id)
  for session in listed.sessions:
    await service.delete_session(app_name=app_name, user_id=user_id, session_id=session.id)
  async with aiosqlite.connect(db_path) as db:
    await db.execute("DELETE FROM user_states WHERE app_name = ? AND user_id = ?",
                     (app_name, user_id))
    await db.commit()
    await db.execute("VACUUM")
    await db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
