"""Exercise (lesson 2, SQLite memory): erase a student.

A student asks the tutor to forget them. Write

    async def forget_user(service, db_path: str, app_name: str, user_id: str) -> None

where ``service`` is the ``SqliteSessionService`` the tutor runs on, and ``db_path`` its file.
The tutor keeps running meanwhile, with a connection of its own open to the file. When
``forget_user`` returns:

1. no session, no event and no user state of ``user_id`` in ``app_name`` is left. The id is
   compared exactly: an id that differs by case, by a space around it or by its Unicode form
   (``é`` composed, or ``e`` + U+0301) is another user's;
2. not one byte of that data can be read anymore: not from the file, not from a ``-journal``
   or ``-wal`` file next to it, not from a copy anywhere (the database's folder, the
   temporary folder, the home folder, any other path), nor from an extended attribute of a
   file or folder. Lesson 2 shows why this needs thought: a deleted row
   stays in the file until SQLite reuses its space (the grader, like SQLite's own builds, runs
   with ``PRAGMA secure_delete`` off). The files are read the moment the function returns,
   while the tutor's connection is still open;
3. everything else is exactly as it was: every other user of the app (whatever their ids look
   like: quotes, ``LIKE`` or ``GLOB`` wildcards, a shared prefix, another case), their sessions
   even where one has the same session id as the user's, the same user id in other apps, the
   app's state, and the file itself: its tables with their keys and indexes, its encoding, page
   size and journal mode. (SQLite's own files next to it may stay as SQLite leaves them once
   everything is committed and checkpointed: an empty ``-journal`` or ``-wal`` file, a
   ``-shm`` file holding the WAL's index. Any other bytes under those names, or past the
   database's last page, count as a copy, whatever they encode.)

``forget_user`` returns ``None``. How you get there is your decision: the service's API, SQL on
the file, or both. The checks look only at the result, on fresh data with new names on every
run, in rollback-journal and WAL files.

Check yourself in a notebook:

    from adkcourse.grade import run_exercise_checks
    report = await run_exercise_checks("forget_user", forget_user)
    report   # score, what happened, and every check's feedback
"""

from __future__ import annotations

import sqlite3
from contextlib import closing


async def forget_user(service, db_path: str, app_name: str, user_id: str) -> None:
  """Remove every trace of one user of one app: sessions, events, user state, and their bytes."""
  ### HINT: When this returns, the file must hold none of this user's sessions, events or user
  ### HINT: state, no byte of them may be readable in the database's folder, and every other
  ### HINT: user, app and app state must be unchanged.
  ### BEGIN SOLUTION
  listed = await service.list_sessions(app_name=app_name, user_id=user_id)
  for session in listed.sessions:  # their events go with them
    await service.delete_session(app_name=app_name, user_id=user_id, session_id=session.id)
  with closing(sqlite3.connect(db_path)) as connection:
    # No ADK API deletes user state: the row outlives the sessions unless we remove it.
    connection.execute("DELETE FROM user_states WHERE app_name = ? AND user_id = ?",
                       (app_name, user_id))
    connection.commit()
    # Deleted rows (and older versions of updated ones) stay in the file's free space until
    # it is reused. VACUUM rewrites the file without them; it cannot run inside a transaction.
    connection.execute("VACUUM")
    # In WAL mode the rewritten pages are in the -wal file and the old ones still in the main
    # file. Closing would fold them back only if ours were the last connection; the tutor's is
    # open, so ask for the checkpoint: TRUNCATE copies every page into the file and empties the
    # -wal (in rollback-journal mode it does nothing).
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
  ### END SOLUTION
