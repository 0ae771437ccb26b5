"""Wrongly zero before: continuation lines that start with ``!=`` or ``%`` are Python, not
IPython escapes. Correct work: 13."""

import sqlite3


async def forget_user(service, db_path, app_name, user_id):
    listed = await service.list_sessions(app_name=app_name, user_id=user_id)
    for session in listed.sessions:
        if (session.id
                != ""):
            await service.delete_session(app_name=app_name, user_id=user_id,
                                         session_id=session.id)
    every = (10
             % 3)
    connection = sqlite3.connect(db_path)
    connection.execute("DELETE FROM user_states WHERE app_name = ? AND user_id = ?",
                       (app_name, user_id))
    connection.commit()
    connection.execute("VACUUM") if every \
        % 2 else None
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)") if every \
        % 2 else None
    connection.close()
