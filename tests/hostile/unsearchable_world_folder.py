"""Erases rightly, then leaves in the database's folder a folder 'sub' holding a file, made
0o444 (listable, not searchable): collect_files (_act.py) takes entry.stat() outside any try,
which raises PermissionError there: the supervisor dies before sending its report. What it earns now: the erasure, not no_trace_left: an
entry that cannot be read is returned as an empty stand-in, and the supervisor goes on."""
import os
import sqlite3
from contextlib import closing


async def forget_user(service, db_path, app_name, user_id):
    listed = await service.list_sessions(app_name=app_name, user_id=user_id)
    for session in listed.sessions:
        await service.delete_session(app_name=app_name, user_id=user_id, session_id=session.id)
    with closing(sqlite3.connect(db_path)) as connection:
        connection.execute("DELETE FROM user_states WHERE app_name = ? AND user_id = ?",
                           (app_name, user_id))
        connection.commit()
        connection.execute("VACUUM")
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    sub = os.path.join(os.path.dirname(db_path), "sub")
    os.makedirs(sub, exist_ok=True)
    with open(os.path.join(sub, "f"), "w") as stream:
        stream.write("x")
    os.chmod(sub, 0o444)
