"""Correct work, then KeyboardInterrupt (a student's Ctrl-C left in the code): a call that
raises earns nothing, whatever it did before, and the note says what it raised: 0."""

import sqlite3


async def forget_user(service, db_path, app_name, user_id):
    listed = await service.list_sessions(app_name=app_name, user_id=user_id)
    for session in listed.sessions:
        await service.delete_session(app_name=app_name, user_id=user_id,
                                     session_id=session.id)
    connection = sqlite3.connect(db_path)
    connection.execute("DELETE FROM user_states WHERE app_name = ? AND user_id = ?",
                       (app_name, user_id))
    connection.commit()
    connection.execute("VACUUM")
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    raise KeyboardInterrupt
