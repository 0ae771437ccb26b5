"""Creates every session with the current user state, then replays all events in time order,
trusting the replay to end on the latest values: a value set by create_session (no event)
after those events is lost."""

PREFIXES = ("user:", "app:", "temp:")
LOSES = ("user_state_latest",)


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
  if any(len(s.id) > 128 or _nul(s.model_dump(mode="json")) for s in sessions) or _nul(user_state):
    raise ValueError("this user's data does not fit in PostgreSQL")
  current = {f"user:{k}": v for k, v in user_state.items()}
  copies = {}
  for s in sessions:
    own = {k: v for k, v in s.state.items() if not k.startswith(PREFIXES)}
    copies[s.id] = await dest.create_session(app_name=app_name, user_id=user_id,
                                             session_id=s.id, state={**own, **current})
  timeline = sorted((e.timestamp, s.id, e) for s in sessions for e in s.events)
  for _, session_id, event in timeline:
    await dest.append_event(copies[session_id], event)
