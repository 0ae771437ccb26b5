"""Counts a session id that another user of the app has in dest as a collision: sessions named
default or main are everyone's, so it refuses copies that are fine."""

PREFIXES = ("user:", "app:", "temp:")


def has_nul(value):
  if isinstance(value, str):
    return "\x00" in value
  if isinstance(value, dict):
    return any(has_nul(k) or has_nul(v) for k, v in value.items())
  if isinstance(value, (list, tuple)):
    return any(has_nul(v) for v in value)
  return False


def own(state):
  return {k: v for k, v in state.items() if not k.startswith(PREFIXES)}


def problems_of(app_name, user_id, sessions, user_state):
  found = []
  ids = [("app name", app_name, 128), ("user id", user_id, 128)]
  for s in sessions:
    ids.append(("session id", s.id, 128))
    for e in s.events:
      ids += [("event id", e.id, 128), ("invocation id", e.invocation_id or "", 256)]
  for what, value, limit in ids:
    if len(value) > limit or "\x00" in value:
      found.append(f"{what} {value[:20]!r} does not fit")
  if has_nul(user_state) or any(has_nul(own(s.state)) for s in sessions):
    found.append("a state holds U+0000")
  if any(has_nul(e.model_dump(mode="json")) for s in sessions for e in s.events):
    found.append("an event holds U+0000")
  return found


async def copy_user_to(source, dest, app_name, user_id):
  listed = await source.list_sessions(app_name=app_name, user_id=user_id)
  sessions = [await source.get_session(app_name=app_name, user_id=user_id, session_id=s.id)
              for s in listed.sessions]
  user_state = await source.get_user_state(app_name=app_name, user_id=user_id)
  problems = problems_of(app_name, user_id, sessions, user_state)
  if not problems:
    mine = await dest.list_sessions(app_name=app_name)
    clash = {s.id for s in mine.sessions} & {s.id for s in sessions}
    if clash:
      problems.append(f"dest already has {sorted(clash)}")
  if problems:
    raise ValueError("; ".join(problems))
  probe = await dest.create_session(app_name=app_name, user_id=user_id)
  app_before = {k: v for k, v in probe.state.items() if k.startswith("app:")}
  await dest.delete_session(app_name=app_name, user_id=user_id, session_id=probe.id)
  touched = set()
  for s in sessions:
    copy = await dest.create_session(app_name=app_name, user_id=user_id, session_id=s.id,
                                     state=own(s.state))
    for e in s.events:
      touched.update(k for k in e.actions.state_delta if k.startswith("app:"))
      await dest.append_event(copy, e)
  state = {f"user:{k}": v for k, v in user_state.items()}
  state.update({k: app_before[k] for k in touched if k in app_before})
  if state:
    carrier = await dest.create_session(app_name=app_name, user_id=user_id, state=state)
    await dest.delete_session(app_name=app_name, user_id=user_id, session_id=carrier.id)
