"""Wrongly zero before: module-level assignments the function uses (a logger, a query built
by concatenation) were dropped, so the function raised NameError (0/13). An experiment that
calls the function at module level is still never run (it would wipe a classmate's data if
it did; here it would raise)."""

import asyncio
import logging
import sqlite3

log = logging.getLogger(__name__)
DELETE_STATE = ("DELETE FROM user_states "
                + "WHERE app_name = ? AND user_id = ?")
TABLES: list[str] = ["user_states"] + []
SETTINGS = dict(vacuum=True)


async def forget_user(service, db_path, app_name, user_id):
    log.info("forgetting %s", user_id)
    listed = await service.list_sessions(app_name=app_name, user_id=user_id)
    for session in listed.sessions:
        await service.delete_session(app_name=app_name, user_id=user_id,
                                     session_id=session.id)
    connection = sqlite3.connect(db_path)
    connection.execute(DELETE_STATE, (app_name, user_id))
    connection.commit()
    if SETTINGS["vacuum"] and TABLES:
        connection.execute("VACUUM")
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()


experiment = asyncio.run(forget_user(None, "/nonexistent.db", "app", "me"))  # never run
trial = forget_user(None, None, None, None)  # never run either
