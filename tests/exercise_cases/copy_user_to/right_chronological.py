"""Appends every event of every session in one global time order (each to its own session),
checks strings by walking the events' JSON, then writes the user state through a carrier."""

import uuid

LIMIT = 128


def strings(value):
  if isinstance(value, str):
    yield value
  elif isinstance(value, dict):
    for k, v in value.items():
      yield k
      yield from strings(v)
  elif isinstance(value, (list, tuple)):
    for v in value:
      yield from strings(v)


async def copy_user_to(source, dest, app_name, user_id):
  ids = [s.id for s in (await source.list_sessions(app_name=app_name, user_id=user_id)).sessions]
  sessions = {i: await source.get_session(app_name=app_name, user_id=user_id, session_id=i)
              for i in ids}
  user_state = await source.get_user_state(app_name=app_name, user_id=user_id)
  too_long = [i for i in ids if len(i) > LIMIT]
  with_nul = [i for i, s in sessions.items()
              if any("\0" in t for t in strings(s.model_dump(mode="json")))]
  if too_long or with_nul or any("\0" in t for t in strings(user_state)):
    raise ValueError(f"PostgreSQL cannot hold: ids over {LIMIT} characters {too_long}, "
                     f"U+0000 in sessions {with_nul} or in the user state")
  copies = {}
  for i, s in sessions.items():
    own = {k: v for k, v in s.state.items() if not k.startswith(("user:", "app:", "temp:"))}
    copies[i] = await dest.create_session(app_name=app_name, user_id=user_id, session_id=i,
                                          state=own)
  timeline = sorted(((e.timestamp, n, i, e) for i, s in sessions.items()
                     for n, e in enumerate(s.events)), key=lambda t: (t[0], t[1]))
  for _time, _n, i, event in timeline:
    await dest.append_event(copies[i], event)
  carrier_id = f"carrier-{uuid.uuid4().hex}"
  await dest.create_session(app_name=app_name, user_id=user_id, session_id=carrier_id,
                            state={"user:" + k: v for k, v in user_state.items()})
  await dest.delete_session(app_name=app_name, user_id=user_id, session_id=carrier_id)
