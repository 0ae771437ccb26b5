"""Validates with a table of column sizes and one generator over every string it will write,
copies the sessions in reverse order, and writes the final state through an event appended
to a carrier session (deleted afterwards), dest's app: values read from that same carrier."""

import json

from google.adk.events import Event, EventActions

SIZES = {"app_name": 128, "user_id": 128, "session": 128, "event": 128, "invocation": 256}


def texts(value):
  if isinstance(value, str):
    yield value
  elif isinstance(value, dict):
    for key, item in value.items():
      yield key
      yield from texts(item)
  elif isinstance(value, (list, tuple)):
    for item in value:
      yield from texts(item)


def encodable(text):
  try:
    text.encode("utf-8")
  except UnicodeEncodeError:  # a lone surrogate
    return False
  return True


def finite(data):
  try:
    json.dumps(data, allow_nan=False, default=str)
  except ValueError:
    return False
  return True


def session_part(state):
  return {k: v for k, v in state.items() if ":" not in k or not k.split(":")[0] in
          ("user", "app", "temp")}


async def copy_user_to(source, dest, app_name, user_id):
  listed = await source.list_sessions(app_name=app_name, user_id=user_id)
  sessions = [await source.get_session(app_name=app_name, user_id=user_id, session_id=s.id)
              for s in reversed(listed.sessions)]
  user_state = await source.get_user_state(app_name=app_name, user_id=user_id)
  sized = [("app_name", app_name), ("user_id", user_id)]
  for s in sessions:
    sized.append(("session", s.id))
    for e in s.events:
      sized += [("event", e.id), ("invocation", e.invocation_id or "")]
  over = [kind for kind, value in sized if len(value) > SIZES[kind]]
  everything = [sized, user_state, [session_part(s.state) for s in sessions],
                [e.model_dump() for s in sessions for e in s.events]]
  if over or any("\x00" in t or not encodable(t) for t in texts(everything)) or not finite(
      everything):
    raise ValueError(f"does not fit in PostgreSQL: {over or 'U+0000 somewhere'}")
  theirs = await dest.list_sessions(app_name=app_name, user_id=user_id)
  taken = sorted({s.id for s in theirs.sessions} & {s.id for s in sessions})
  if taken:
    raise ValueError(f"dest already has {taken} for this user")
  carrier = await dest.create_session(app_name=app_name, user_id=user_id)
  had = {k: v for k, v in carrier.state.items() if k.startswith("app:")}
  rewritten = {}
  for s in sessions:
    copy = await dest.create_session(app_name=app_name, user_id=user_id, session_id=s.id,
                                     state=session_part(s.state))
    for e in s.events:
      rewritten.update({k: had[k] for k in e.actions.state_delta if k in had})
      await dest.append_event(copy, e)
  delta = {**{f"user:{k}": v for k, v in user_state.items()}, **rewritten}
  if delta:
    carrier = await dest.get_session(app_name=app_name, user_id=user_id, session_id=carrier.id)
    await dest.append_event(carrier, Event(author="migration", invocation_id="copy",
                                           actions=EventActions(state_delta=delta)))
  await dest.delete_session(app_name=app_name, user_id=user_id, session_id=carrier.id)
