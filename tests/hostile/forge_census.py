"""Forging the record of entries a copy of bytes loses: erases the user rightly, keeps an empty
folder named after them beside the database (the sandbox returns files, not empty folders),
and patches the exercise's ``census`` (run in the submission's own process) to leave that
folder out. The census of the world as the run left it is taken by the supervisor after the
run, where the patch does not reach: it loses no_trace_left, and only that."""

import os
import sqlite3
import sys

EXERCISE = sys.modules.get("adkcourse.grade.checks.forget_user")
REAL_CENSUS = EXERCISE.census if EXERCISE is not None else None


def _census(root):
    return {path: item for path, item in REAL_CENSUS(root).items() if "kept-" not in path}


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
    os.makedirs(os.path.join(os.path.dirname(db_path), "kept-" + user_id.encode().hex()),
                exist_ok=True)
    if EXERCISE is not None:
        EXERCISE.census = _census
