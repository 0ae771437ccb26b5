"""Resources: does the work, then writes as much as it can (1 GB asked) outside its work
folder: in its home, /tmp, /dev/shm, /var/tmp, / and /grade. The writes stop at the
sandbox's caps, the next worlds still have room (home and temporary folders are capped apart
from the work folder) and nothing is left anywhere afterwards; the judge sees the files it
left in /tmp, a trace a right answer does not leave: 13 less no_trace_left's 3."""

import os
import sqlite3

MARK = "hostile-disk-41aa"
CALLS = [0]


def _fill(path, megabytes=1024):
    chunk = b"x" * (1024 * 1024)
    try:
        with open(path, "wb") as stream:
            for _ in range(megabytes):
                stream.write(chunk)
    except OSError as error:
        print("stopped writing", path, error.strerror)


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
    CALLS[0] += 1
    if CALLS[0] == 1:  # once: its own work folder stays usable for the next call
        for folder in (os.path.expanduser("~"), "/tmp", "/dev/shm", "/var/tmp", "/", "/grade"):
            _fill(os.path.join(folder, f"{MARK}.bin"))
