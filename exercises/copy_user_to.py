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
   without a prefix), and no other session of the user has been added (a session you create
   only to carry state must be deleted again; ``dest`` may already hold any session id, so
   let the service choose that one's id);
2. each of them holds all the source's events (however many), in order, each exactly as the
   source stores it: every field, the id, timestamp, invocation id, author, branch, content
   (function calls and responses included), actions and metadata among them;
3. ``dest``'s user state for this user holds every ``user:`` key of the source with the value
   the source has **now** (a key both stores have takes the source's value, even ``None``,
   ``0``, ``False`` or empty);
4. nothing else ``dest`` held is lost or changed: other users (even with ids that start the
   same way or differ only by case), the same user id in other apps, this user's own sessions
   and user-state keys that only ``dest`` has, and the app's state: every ``app:`` key ``dest``
   held when the call began keeps that value (another writer may change it between two
   calls). (Appending an event applies its ``state_delta``, ``app:`` keys included: put back
   what it overwrote. An ``app:`` key that only the source's events wrote may appear in
   ``dest``, with any value: that is left open.);
5. ``source`` is unchanged.

Ids are compared exactly as they are: ids that differ only by case, by spaces or by Unicode
normalisation (``é`` composed or ``e`` + U+0301) are different ids, of different users,
sessions or apps. (SQLite's service strips the spaces around a session id it creates, so no
session id in these stores has any.) A user the source holds nothing of (no session, no user
state) is no error: there is nothing to copy, and the call returns having written nothing.

Some copies must be refused: raise ``ValueError`` saying why, having written **nothing** to
``dest``, when

- one of the user's session ids is already a session of **this user** in ``dest`` (same app,
  same user id): a copy never merges into or replaces a session. The same id under another
  user or in another app is no collision;
- the data does not fit in PostgreSQL. ``DatabaseSessionService`` keeps the app name, the user
  id, session ids and event ids in ``varchar(128)`` columns and invocation ids in
  ``varchar(256)`` (sizes in characters, that is code points as Python's ``len`` counts them:
  128 fit, whatever they are, and 129 do not, whatever they look like); nothing else has a
  size limit. States and events are ``jsonb`` and ids are text, which refuse, anywhere (in a
  key or a value, nested or not, in an id, a session's own state, the user state or any field
  of an event: its text, function calls and responses with their names and ids, actions,
  metadata, author, branch...): the character U+0000, a lone surrogate (U+D800 to U+DFFF) and
  a number that is not finite (NaN, Infinity, -Infinity). A SQLite store can hold them (its
  service keeps the NaN or Infinity of a state it is given, and writes an event's as null; a
  file written by other means may hold anything, but for a lone surrogate in an event, which
  the service could not read back). Written out they are only text, and fine: the six
  characters ``\\u0000``, the four ``\\x00``, the word ``NaN``. The app name and the user id
  are checked whatever the source holds. Only what the copy writes must fit: the app's state
  (the ``app:`` keys a session shows) is not copied, so it is no reason to refuse.

Left open: what it returns; the creation and update times of the sessions it creates, and
when it last wrote the user's and the app's state rows.

Check yourself in a notebook (the checks copy several users per world, both ways, on the
course's PostgreSQL, with fresh names on every run):

    from adkcourse.grade import run_exercise_checks
    report = await run_exercise_checks("copy_user_to", copy_user_to)
    report   # score, what happened, and every check's feedback
"""

from __future__ import annotations

PREFIXES = ("user:", "app:", "temp:")
MAX_ID, MAX_INVOCATION_ID = 128, 256  # DatabaseSessionService's column sizes


### BEGIN SOLUTION
import math
import re

UNFIT_TEXT = re.compile("[\x00\ud800-\udfff]")  # U+0000 or half of a surrogate pair


def _unfit(value) -> bool:
  """Whether JSON-like data holds what jsonb refuses: U+0000 or a lone surrogate in a string
  (key or value), a float that is not finite."""
  if isinstance(value, str):
    return UNFIT_TEXT.search(value) is not None
  if isinstance(value, float):
    return not math.isfinite(value)
  if isinstance(value, dict):
    return any(_unfit(k) or _unfit(v) for k, v in value.items())
  if isinstance(value, (list, tuple)):
    return any(_unfit(v) for v in value)
  return False


def _own(state: dict) -> dict:
  """A session's own keys: what a copy writes (get_session also shows user: and app: keys)."""
  return {k: v for k, v in state.items() if not k.startswith(PREFIXES)}


def _id_problems(what: str, value: str, limit: int = MAX_ID) -> list[str]:
  problems = []
  if len(value) > limit:
    problems.append(f"{what} {value[:30]!r}... has {len(value)} characters (at most {limit})")
  if _unfit(value):
    problems.append(f"{what} {value[:30]!r} contains U+0000 or a lone surrogate")
  return problems


def _what_does_not_fit(sessions, user_state) -> list[str]:
  """Every piece of the user's data that PostgreSQL cannot store, in words."""
  problems = []
  if _unfit(user_state):
    problems.append("the user state holds U+0000, a lone surrogate or a number that is not "
                    "finite")
  for session in sessions:
    problems += _id_problems("session id", session.id)
    if _unfit(_own(session.state)):
      problems.append(f"session {session.id[:30]!r}'s state holds U+0000, a lone surrogate or "
                      "a number that is not finite")
    for event in session.events:
      problems += _id_problems("event id", event.id)
      problems += _id_problems("invocation id", event.invocation_id or "", MAX_INVOCATION_ID)
      # Python values: mode="json" writes a NaN in metadata, arguments or a delta as null
      if _unfit(event.model_dump()):
        problems.append(f"event {event.id[:30]!r} of session {session.id[:30]!r} holds "
                        "U+0000, a lone surrogate or a number that is not finite")
  return problems
### END SOLUTION


async def copy_user_to(source, dest, app_name: str, user_id: str) -> None:
  """Copy one user's sessions, events and user state from ``source`` into ``dest``."""
  ### HINT: When this returns, dest holds every session of the user (same ids, own state, the
  ### HINT: same events exactly) and the source's current user state, and has lost or changed
  ### HINT: nothing it held (the app's state included); a session id this user already has in
  ### HINT: dest, or data PostgreSQL cannot hold, raises ValueError with dest left untouched.
  ### BEGIN SOLUTION
  # 1. Ids PostgreSQL cannot hold cannot even be looked up there: check them before anything.
  problems = _id_problems("the app name", app_name) + _id_problems("the user id", user_id)
  if problems:
    raise ValueError(f"cannot copy {user_id!r} of {app_name!r}: " + "; ".join(problems))
  # 2. Read everything (list_sessions leaves the events out; get_session, without a config,
  # has them all), and check it all before the first write: a refusal leaves dest as it was.
  listed = await source.list_sessions(app_name=app_name, user_id=user_id)
  sessions = [await source.get_session(app_name=app_name, user_id=user_id, session_id=s.id)
              for s in listed.sessions]
  user_state = await source.get_user_state(app_name=app_name, user_id=user_id)
  problems = _what_does_not_fit(sessions, user_state)
  if not problems:
    existing = await dest.list_sessions(app_name=app_name, user_id=user_id)
    taken = {s.id for s in existing.sessions} & {s.id for s in sessions}
    if taken:
      problems.append(f"dest already has session(s) {', '.join(sorted(taken))} of this user")
  if problems:
    raise ValueError(f"cannot copy {user_id!r} of {app_name!r}: " + "; ".join(problems))
  if not sessions and not user_state:
    return  # nothing to copy
  # 3. dest's app state as it is now (not as an earlier call saw it): every session shows it
  # (the app: keys of its state), so look at one created for that (no ADK method reads app
  # state alone).
  probe = await dest.create_session(app_name=app_name, user_id=user_id)
  app_state = {k: v for k, v in probe.state.items() if k.startswith("app:")}
  await dest.delete_session(app_name=app_name, user_id=user_id, session_id=probe.id)
  # 4. Sessions with their own state, then their events as stored. Each event's state_delta is
  # applied again, app: keys included.
  replayed = set()
  for session in sessions:
    copy = await dest.create_session(app_name=app_name, user_id=user_id,
                                     session_id=session.id, state=_own(session.state))
    for event in session.events:
      replayed.update(k for k in (event.actions.state_delta or {}) if k.startswith("app:"))
      await dest.append_event(copy, event)
  # 5. Appending replayed each event's user: writes with the values of its time, and the session
  # replayed last need not hold the latest one; it also overwrote dest's app: values. Write the
  # source's user state and dest's old app values once more, after every event. No method
  # writes state alone; create_session does, without adding an event, and delete_session leaves
  # user and app state behind (lesson 2): a session that only carries it.
  state = {f"user:{key}": value for key, value in user_state.items()}
  state.update({key: app_state[key] for key in replayed if key in app_state})
  if state:
    carrier = await dest.create_session(app_name=app_name, user_id=user_id, state=state)
    await dest.delete_session(app_name=app_name, user_id=user_id, session_id=carrier.id)
  ### END SOLUTION
