"""Appends every event of every session in one global time order (each to its own session),
checks strings and numbers by walking the data, and carries the final user state and dest's old app:
values in one event appended to a carrier session, deleted afterwards."""

import uuid

from google.adk.events import Event, EventActions

LIMITS = {"app name": 128, "user id": 128, "session id": 128, "event id": 128,
          "invocation id": 256}


def strings(value):
  if isinstance(value, (str, float)):
    yield value
  elif isinstance(value, dict):
    for k, v in value.items():
      yield k
      yield from strings(v)
  elif isinstance(value, (list, tuple)):
    for v in value:
      yield from strings(v)


def unstorable(atom):
  """U+0000 or half a surrogate pair in a string; NaN or an infinity."""
  if isinstance(atom, float):
    return atom != atom or abs(atom) == float("inf")
  return any(c == "\0" or 0xD800 <= ord(c) <= 0xDFFF for c in atom)


def own(state):
  return {k: v for k, v in state.items() if not k.startswith(("user:", "app:", "temp:"))}


async def copy_user_to(source, dest, app_name, user_id):
  ids = [s.id for s in (await source.list_sessions(app_name=app_name, user_id=user_id)).sessions]
  sessions = {i: await source.get_session(app_name=app_name, user_id=user_id, session_id=i)
              for i in ids}
  user_state = await source.get_user_state(app_name=app_name, user_id=user_id)
  named = [("app name", app_name), ("user id", user_id)] + [("session id", i) for i in ids]
  for s in sessions.values():
    for e in s.events:
      named += [("event id", e.id), ("invocation id", e.invocation_id or "")]
  too_long = [f"{what} of {len(v)} characters" for what, v in named if len(v) > LIMITS[what]]
  data = [user_state] + [own(s.state) for s in sessions.values()] + [
      e.model_dump() for s in sessions.values() for e in s.events]
  with_nul = any(unstorable(t) for t in strings(data)) or any(unstorable(v) for _, v in named)
  if too_long or with_nul:
    raise ValueError(f"PostgreSQL cannot hold: {too_long or ''} {'U+0000' if with_nul else ''}")
  mine = await dest.list_sessions(app_name=app_name, user_id=user_id)
  if {s.id for s in mine.sessions} & set(ids):
    raise ValueError("dest already has one of these sessions for this user")
  carrier_id = f"carrier-{uuid.uuid4().hex}"
  carrier = await dest.create_session(app_name=app_name, user_id=user_id, session_id=carrier_id)
  app_before = {k: v for k, v in carrier.state.items() if k.startswith("app:")}
  copies = {}
  for i, s in sessions.items():
    copies[i] = await dest.create_session(app_name=app_name, user_id=user_id, session_id=i,
                                          state=own(s.state))
  timeline = sorted(((e.timestamp, n, i, e) for i, s in sessions.items()
                     for n, e in enumerate(s.events)), key=lambda t: (t[0], t[1]))
  for _time, _n, i, event in timeline:
    await dest.append_event(copies[i], event)
  delta = {"user:" + k: v for k, v in user_state.items()}
  delta.update({k: v for k, v in app_before.items()
                if any(k in e.actions.state_delta for *_, e in timeline)})
  carrier = await dest.get_session(app_name=app_name, user_id=user_id, session_id=carrier_id)
  await dest.append_event(carrier, Event(author="copy_user_to",
                                         actions=EventActions(state_delta=delta)))
  await dest.delete_session(app_name=app_name, user_id=user_id, session_id=carrier_id)
