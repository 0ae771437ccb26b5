"""Exercise (lesson 3, PostgreSQL): move a student to the new database.

The tutor ran on a local SQLite file; it now runs on PostgreSQL. The two stores have different
schemas (``DatabaseSessionService`` can read a ``SqliteSessionService`` file but fails on the
first append, as lesson 3 shows), and PostgreSQL is not a file anyway: copy through the
services. Write

    async def copy_user_to(source, dest, app_name: str, user_id: str) -> None

where ``source`` is a ``SqliteSessionService`` and ``dest`` any other session service
(``DatabaseSessionService("postgresql+asyncpg://...")`` in the lesson). For that one user of
that one app it must copy:

1. every session, keeping its id, with its own state (keys without a prefix);
2. every event of each session, in order (``get_session`` returns them; ``list_sessions``
   does not);
3. the user's state (the ``user:`` keys) as the source has it now, including keys that no
   event ever set.

It must not copy other users, must not change what ``dest`` already holds for other users,
and must not modify ``source``. ``app:`` state is the app's, not the user's: it is not
part of the exercise.

Tips: ``create_session(..., state=...)`` stores ``user:`` keys in the user state; appending
an event replays its ``state_delta``, ``user:`` keys included, with the values of its time.
A student who goes back to an older session makes it the session updated last, although its
``user:`` writes are older than another session's: whatever order the sessions are copied in,
replayed events can leave an old value. Check yourself in a notebook (grading uses SQLite for ``dest`` as well, through
``DatabaseSessionService("sqlite+aiosqlite:///...")``, the same code as PostgreSQL):

    from adkcourse.grade import run_exercise_checks
    report = await run_exercise_checks("copy_user_to", copy_user_to)
    report   # score, what happened, and every check's feedback
"""

from __future__ import annotations

PREFIXES = ("user:", "app:", "temp:")


async def copy_user_to(source, dest, app_name: str, user_id: str) -> None:
  """Copy one user's sessions, events and user state from ``source`` into ``dest``."""
  ### HINT: source.get_user_state(...) gives the user state; for each session of
  ### HINT: source.list_sessions(...), source.get_session(...) gives its events; create it in dest
  ### HINT: (same id, own state), then dest.append_event(copy, event) for each. Events replay old
  ### HINT: user: values, so write the user state last: create_session(state={"user:...": ...})
  ### HINT: writes it without an event, and delete_session leaves user state behind.
  ### BEGIN SOLUTION
  listed = await source.list_sessions(app_name=app_name, user_id=user_id)
  for listed_session in listed.sessions:
    session = await source.get_session(app_name=app_name, user_id=user_id,
                                       session_id=listed_session.id)
    own_state = {k: v for k, v in session.state.items() if not k.startswith(PREFIXES)}
    copy = await dest.create_session(app_name=app_name, user_id=user_id,
                                     session_id=session.id, state=own_state)
    for event in session.events:
      await dest.append_event(copy, event)
  # Replayed events wrote each user: key with the value of their time, and the session
  # replayed last need not hold the latest write. Write the user state once more, after every
  # event. No method writes user state alone; create_session does, without adding an event,
  # and delete_session leaves user state behind (lesson 2): a session that only carries it.
  user_state = await source.get_user_state(app_name=app_name, user_id=user_id)
  if user_state:
    carrier = await dest.create_session(
        app_name=app_name, user_id=user_id,
        state={f"user:{key}": value for key, value in user_state.items()})
    await dest.delete_session(app_name=app_name, user_id=user_id, session_id=carrier.id)
  ### END SOLUTION
