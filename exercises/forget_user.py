"""Exercise (lesson 2, SQLite memory): erase a student.

A student asks the tutor to forget them. Write

    async def forget_user(service, db_path: str, app_name: str, user_id: str) -> None

where ``service`` is the ``SqliteSessionService(db_path)`` the tutor runs on. It must:

1. delete every session of ``user_id`` in ``app_name`` through the service API
   (``list_sessions`` then ``delete_session``): the events of a session go with it;
2. then delete the user's row in the ``user_states`` table with SQL on the SQLite file
   (``DELETE FROM user_states WHERE app_name=? AND user_id=?``): no ADK API deletes user state,
   and ``delete_session`` leaves it behind;
3. leave everything else as it was: other users' sessions, events and state, the same user id
   in other apps, and ``app_states``.

Check yourself in a notebook:

    from adkcourse.grade import run_exercise_checks
    report = await run_exercise_checks("forget_user", forget_user)
    report   # score, what happened, and every check's feedback
"""

from __future__ import annotations

import sqlite3
from contextlib import closing


async def forget_user(service, db_path: str, app_name: str, user_id: str) -> None:
  """Remove every trace of one user of one app: sessions, their events, and user state."""
  ### HINT: await service.list_sessions(app_name=..., user_id=...), then delete_session for each
  ### HINT: session; the user_states row needs SQL: sqlite3.connect(db_path) and a DELETE ... WHERE
  ### HINT: app_name=? AND user_id=? (commit!).
  ### BEGIN SOLUTION
  listed = await service.list_sessions(app_name=app_name, user_id=user_id)
  for session in listed.sessions:
    await service.delete_session(app_name=app_name, user_id=user_id, session_id=session.id)
  # No ADK API deletes user state: the row outlives the sessions unless we remove it ourselves.
  with closing(sqlite3.connect(db_path)) as connection:
    connection.execute("DELETE FROM user_states WHERE app_name = ? AND user_id = ?",
                       (app_name, user_id))
    connection.commit()
  ### END SOLUTION
