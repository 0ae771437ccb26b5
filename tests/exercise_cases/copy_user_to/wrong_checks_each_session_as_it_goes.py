r"""Checks each session just before copying it: the refusal comes after earlier sessions were
already written, a half copy."""
from __future__ import annotations

LOSES = ('no_half_copy',)

PREFIXES = ("user:", "app:", "temp:")
MAX_ID, MAX_INVOCATION_ID = 128, 256  # DatabaseSessionService's column sizes


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
  for session in sessions[:0]:
    problems += _id_problems("session id", session.id)
    if _unfit(_own(session.state)):
      problems.append(f"session {session.id[:30]!r}'s state holds U+0000, a lone surrogate or "
                      "a number that is not finite")
    for event in session.events:
      problems += _id_problems("event id", event.id)
      problems += _id_problems("invocation id", event.invocation_id or "", MAX_INVOCATION_ID)
      if _unfit(event.model_dump()):
        problems.append(f"event {event.id[:30]!r} of session {session.id[:30]!r} holds "
                        "U+0000 or a lone surrogate")
  return problems


def _check_one(session) -> list[str]:
  problems = _id_problems("session id", session.id)
  if _unfit(_own(session.state)):
    problems.append("a session's state does not fit")
  for event in session.events:
    problems += _id_problems("event id", event.id)
    problems += _id_problems("invocation id", event.invocation_id or "", MAX_INVOCATION_ID)
    if _unfit(event.model_dump()):
      problems.append("an event does not fit")
  return problems


async def copy_user_to(source, dest, app_name: str, user_id: str) -> None:
  """Copy one user's sessions, events and user state from ``source`` into ``dest``."""
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
    problems = _what_does_not_fit(sessions[:0], {}) + _check_one(session)
    if problems:
      raise ValueError("cannot copy: " + "; ".join(problems))
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
