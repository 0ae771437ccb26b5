"""Resources: does the work, then starts six children that each touch 200 MB (the limit is
per submission, all processes together: they cannot all live) and a bounded fork bomb that
holds as many processes as it can get, after its last call's work. The sandbox's caps stop
both; classmates are not affected (no "can't start new thread" for them): 13."""

import os
import sqlite3
import time

CALLS = [0]


def _hog(megabytes=200):
    pids = []
    for _ in range(6):
        pid = os.fork()
        if pid == 0:
            try:
                block = bytearray(megabytes * 1024 * 1024)
                for i in range(0, len(block), 4096):
                    block[i] = 1
                time.sleep(1)
            finally:
                os._exit(0)
        pids.append(pid)
    for pid in pids:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass


def _fork_bomb(limit=3000):
    started = 0
    for _ in range(limit):
        try:
            pid = os.fork()
        except OSError as error:
            print("fork refused after", started, "processes:", error.strerror)
            break
        if pid == 0:
            time.sleep(5)
            os._exit(0)
        started += 1


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
    if CALLS[0] == 4:  # after the work of the last call (one per world): only this submission may suffer
        _hog()
        _fork_bomb()
