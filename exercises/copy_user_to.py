"""Exercise (lesson 3, PostgreSQL): move a student between stores.

The tutor ran on a local SQLite file; it now runs on PostgreSQL (and one day a student may
need to go the other way). The two stores have different schemas (lesson 3 shows what
happens when ``DatabaseSessionService`` opens a ``SqliteSessionService`` file), so the data
moves **through the services**. Write

    async def copy_user_to(source, dest, app_name: str, user_id: str) -> None

where ``source`` and ``dest`` are session services: a ``SqliteSessionService`` or a
``DatabaseSessionService("postgresql+asyncpg://...")``, either way round. For that one user of
that one app, when it returns:

1. every session of the user is in ``dest`` under the same id, with its own state (the keys
   without a prefix);
2. each of them holds the source's events, in order, each exactly as the source stores it:
   same id, timestamp, invocation id, author, content (function calls and responses
   included), actions and metadata;
3. ``dest``'s user state for this user holds every ``user:`` key of the source with the value
   the source has **now**;
4. nothing ``dest`` already held is lost or changed: other users (even with ids that start
   the same way), the same user id in other apps, and this user's own sessions and user-state
   keys that only ``dest`` has (a key both stores have takes the source's value);
5. ``source`` is unchanged.

PostgreSQL cannot hold everything SQLite can: ``DatabaseSessionService`` stores ids in
``varchar(128)`` columns (invocation ids: 256) and state and events in ``jsonb``, which refuses
the character U+0000. If any of the user's data does not fit, raise ``ValueError`` saying what
does not fit, and write **nothing** to ``dest``: a half-copied student is worse than none.
The app's state (``app:`` keys) belongs to the app, not to the user: it is not part of the
exercise.

Check yourself in a notebook (the checks copy several times, both ways, on the course's
PostgreSQL, with fresh names on every run):

    from adkcourse.grade import run_exercise_checks
    report = await run_exercise_checks("copy_user_to", copy_user_to)
    report   # score, what happened, and every check's feedback
"""

from __future__ import annotations

PREFIXES = ("user:", "app:", "temp:")
MAX_ID, MAX_INVOCATION_ID = 128, 256  # DatabaseSessionService's column sizes


### BEGIN SOLUTION
def _has_nul(value) -> bool:
  """Whether U+0000 occurs in any string (key or value) of JSON-like data."""
  if isinstance(value, str):
    return "\x00" in value
  if isinstance(value, dict):
    return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
  if isinstance(value, (list, tuple)):
    return any(_has_nul(v) for v in value)
  return False


def _what_does_not_fit(sessions, user_state) -> list[str]:
  """Every piece of the user's data that PostgreSQL cannot store, in words."""
  problems = []
  if _has_nul(user_state):
    problems.append("the user state contains U+0000")
  for session in sessions:
    if len(session.id) > MAX_ID:
      problems.append(f"session id {session.id[:30]}... has {len(session.id)} characters "
                      f"(at most {MAX_ID})")
    if _has_nul(session.state):
      problems.append(f"session {session.id[:30]}'s state contains U+0000")
    for event in session.events:
      if len(event.id) > MAX_ID or len(event.invocation_id or "") > MAX_INVOCATION_ID:
        problems.append(f"event {event.id[:30]} has an id too long for PostgreSQL")
      if _has_nul(event.model_dump(mode="json")):
        problems.append(f"event {event.id[:30]} of session {session.id[:30]} contains U+0000")
  return problems
### END SOLUTION


async def copy_user_to(source, dest, app_name: str, user_id: str) -> None:
  """Copy one user's sessions, events and user state from ``source`` into ``dest``."""
  ### HINT: When this returns, dest holds every session of the user (same ids, own state, the
  ### HINT: same events exactly) and the source's current user state, and has lost nothing it
  ### HINT: held; data PostgreSQL cannot hold raises ValueError with dest left untouched.
  ### BEGIN SOLUTION
  # 1. Read everything first (list_sessions leaves the events out; get_session has them).
  listed = await source.list_sessions(app_name=app_name, user_id=user_id)
  sessions = [await source.get_session(app_name=app_name, user_id=user_id, session_id=s.id)
              for s in listed.sessions]
  user_state = await source.get_user_state(app_name=app_name, user_id=user_id)
  # 2. Check it all before the first write: a refusal must leave dest as it was.
  problems = _what_does_not_fit(sessions, user_state)
  existing = await dest.list_sessions(app_name=app_name, user_id=user_id)
  taken = {s.id for s in existing.sessions} & {s.id for s in sessions}
  if taken:
    problems.append(f"dest already has session(s) {', '.join(sorted(taken))} for this user")
  if problems:
    raise ValueError(f"cannot copy {user_id!r} of {app_name!r}: " + "; ".join(problems))
  # 3. Sessions with their own state, then their events as stored.
  for session in sessions:
    own_state = {k: v for k, v in session.state.items() if not k.startswith(PREFIXES)}
    copy = await dest.create_session(app_name=app_name, user_id=user_id,
                                     session_id=session.id, state=own_state)
    for event in session.events:
      await dest.append_event(copy, event)
  # 4. Appending replayed each event's user: writes with the values of its time, and the session
  # replayed last need not hold the latest one. Write the source's user state once more, after
  # every event. No method writes user state alone; create_session does, without adding an
  # event, and delete_session leaves user state behind (lesson 2): a session that only carries it.
  if user_state:
    carrier = await dest.create_session(
        app_name=app_name, user_id=user_id,
        state={f"user:{key}": value for key, value in user_state.items()})
    await dest.delete_session(app_name=app_name, user_id=user_id, session_id=carrier.id)
  ### END SOLUTION
