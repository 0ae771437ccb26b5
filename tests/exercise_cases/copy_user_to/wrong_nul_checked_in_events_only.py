"""Looks for U+0000 in the events only: a value set when a session was created (no event)
reaches PostgreSQL, which fails half-way."""

PREFIXES = ("user:", "app:", "temp:")
LOSES = ("refuses_what_postgres_cannot_hold", "no_half_copy")


def _nul(value):
  if isinstance(value, str):
    return "\x00" in value
  if isinstance(value, dict):
    return any(_nul(k) or _nul(v) for k, v in value.items())
  if isinstance(value, list):
    return any(_nul(v) for v in value)
  return False


async def copy_user_to(source, dest, app_name, user_id):
  listed = await source.list_sessions(app_name=app_name, user_id=user_id)
  sessions = [await source.get_session(app_name=app_name, user_id=user_id, session_id=s.id)
              for s in listed.sessions]
  user_state = await source.get_user_state(app_name=app_name, user_id=user_id)
  for s in sessions:
    if len(s.id) > 128 or any(_nul(e.model_dump(mode="json")) for e in s.events):
      raise ValueError(f"session {s.id[:16]}... does not fit in PostgreSQL")
  for s in sessions:
    copy = await dest.create_session(app_name=app_name, user_id=user_id, session_id=s.id,
                                     state={k: v for k, v in s.state.items()
                                            if not k.startswith(PREFIXES)})
    for event in s.events:
      await dest.append_event(copy, event)
  carrier = await dest.create_session(app_name=app_name, user_id=user_id,
                                      state={f"user:{k}": v for k, v in user_state.items()})
  await dest.delete_session(app_name=app_name, user_id=user_id, session_id=carrier.id)
