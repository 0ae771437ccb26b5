"""Erases rightly (the reference's way), then leaves a 1200-deep chain of empty folders in the
database's folder BEFORE returning: act's snapshot (_harness.snapshot_folder) still walks the
world with os.walk, which recurses on 3.11 (RecursionError: act breaks, the world is not
snapshotted) and not on 3.13. What it earns now: the erasure, not no_trace_left: the
snapshot walks with adkcourse.grade.tree (64 levels, the rest unreadable) on every Python."""
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
    fd = os.open(os.path.dirname(db_path), os.O_RDONLY)
    for _ in range(1200):
        os.mkdir("k", dir_fd=fd)
        inner = os.open("k", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(fd)
