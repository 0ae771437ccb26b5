"""Wrongly zero before: the function is defined inside ``try`` and ``if`` blocks (with other
statements around it that the grader drops). Correct work: 13."""

import sqlite3
import sys

try:
    import numpy  # noqa: F401
except ImportError:
    numpy = None
    print("no numpy here")

if sys.version_info >= (3, 8):
    try:
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
        print("defined")
    except Exception as error:
        print(error)
else:
    raise SystemExit("too old")
