"""Checks each session just before copying it: the refusal comes after earlier sessions were
already written, a half copy."""

PREFIXES = ("user:", "app:", "temp:")
LOSES = ("no_half_copy",)


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
  for item in listed.sessions:
    s = await source.get_session(app_name=app_name, user_id=user_id, session_id=item.id)
    if len(s.id) > 128 or _nul(s.state) or any(_nul(e.model_dump(mode="json")) for e in s.events):
      raise ValueError(f"session {s.id[:20]}... cannot be stored in PostgreSQL")
    copy = await dest.create_session(app_name=app_name, user_id=user_id, session_id=s.id,
                                     state={k: v for k, v in s.state.items()
                                            if not k.startswith(PREFIXES)})
    for event in s.events:
      await dest.append_event(copy, event)
  user_state = await source.get_user_state(app_name=app_name, user_id=user_id)
  carrier = await dest.create_session(app_name=app_name, user_id=user_id,
                                      state={f"user:{k}": v for k, v in user_state.items()})
  await dest.delete_session(app_name=app_name, user_id=user_id, session_id=carrier.id)
