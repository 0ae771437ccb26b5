"""Deep copies of the events (model_copy), validation through pydantic's JSON, one helper per
step, and a clash check on existing session ids."""

import json

PREFIXES = ("user:", "app:", "temp:")


def holds_nul(model_or_data) -> bool:
  data = model_or_data.model_dump(mode="json") if hasattr(model_or_data, "model_dump") else model_or_data

  def walk(value):
    if isinstance(value, str):
      return "\x00" in value
    if isinstance(value, dict):
      return any(walk(k) or walk(v) for k, v in value.items())
    if isinstance(value, list):
      return any(walk(v) for v in value)
    return False

  return walk(json.loads(json.dumps(data)))


async def read_all(service, app_name, user_id):
  listed = await service.list_sessions(app_name=app_name, user_id=user_id)
  full = []
  for item in listed.sessions:
    full.append(await service.get_session(app_name=app_name, user_id=user_id, session_id=item.id))
  return full, await service.get_user_state(app_name=app_name, user_id=user_id)


async def copy_user_to(source, dest, app_name, user_id):
  sessions, user_state = await read_all(source, app_name, user_id)
  problems = [f"session id of {len(s.id)} characters" for s in sessions if len(s.id) > 128]
  problems += [f"U+0000 in session {s.id[:12]}" for s in sessions if holds_nul(s)]
  problems += ["U+0000 in the user state"] if holds_nul(user_state) else []
  already = {s.id for s in (await dest.list_sessions(app_name=app_name, user_id=user_id)).sessions}
  problems += [f"{s.id[:12]} already in dest" for s in sessions if s.id in already]
  if problems:
    raise ValueError("; ".join(problems))
  for s in sessions:
    target = await dest.create_session(
        app_name=app_name, user_id=user_id, session_id=s.id,
        state={k: v for k, v in s.state.items() if not k.startswith(PREFIXES)})
    for event in s.events:
      target = target  # the same object, updated by append_event
      await dest.append_event(target, event.model_copy(deep=True))
  if user_state:
    state = {"user:" + key: value for key, value in user_state.items()}
    carrier = await dest.create_session(app_name=app_name, user_id=user_id, state=state)
    await dest.delete_session(app_name=app_name, user_id=user_id, session_id=carrier.id)
