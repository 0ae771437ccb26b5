"""Deep copies of the events (model_copy), validation through pydantic's JSON, one helper per
step; dest's app state is compared before and after the replay and only the app: keys the
replay changed are put back."""

import json
import math
import re

LONE = re.compile("[\ud800-\udfff]")

PREFIXES = ("user:", "app:", "temp:")


def holds_nul(data) -> bool:
  def walk(value):
    if isinstance(value, str):
      return "\x00" in value or LONE.search(value) is not None
    if isinstance(value, float):
      return not math.isfinite(value)
    if isinstance(value, dict):
      return any(walk(k) or walk(v) for k, v in value.items())
    if isinstance(value, list):
      return any(walk(v) for v in value)
    return False

  # Python values (mode="json" would write a NaN in metadata or arguments as null); what json
  # cannot write itself (bytes) as its repr
  return walk(json.loads(json.dumps(data, default=repr)))


def own_state(session):
  return {k: v for k, v in session.state.items() if not k.startswith(PREFIXES)}


async def read_all(service, app_name, user_id):
  listed = await service.list_sessions(app_name=app_name, user_id=user_id)
  full = []
  for item in listed.sessions:
    full.append(await service.get_session(app_name=app_name, user_id=user_id, session_id=item.id))
  return full, await service.get_user_state(app_name=app_name, user_id=user_id)


def check(app_name, user_id, sessions, user_state):
  problems = [f"{what} is {len(v)} characters" for what, v in
              [("app_name", app_name), ("user_id", user_id)] if len(v) > 128]
  problems += [f"session id of {len(s.id)} characters" for s in sessions if len(s.id) > 128]
  for s in sessions:
    problems += [f"event {e.id[:12]} has a long id" for e in s.events
                 if len(e.id) > 128 or len(e.invocation_id or "") > 256]
    if holds_nul([s.id, own_state(s)] + [e.model_dump() for e in s.events]):
      problems.append(f"U+0000 in session {s.id[:12]}")
  if holds_nul([app_name, user_id, user_state]):
    problems.append("U+0000 in the user state or the names")
  return problems


async def app_state(dest, app_name, user_id):
  look = await dest.create_session(app_name=app_name, user_id=user_id)
  await dest.delete_session(app_name=app_name, user_id=user_id, session_id=look.id)
  return {k: v for k, v in look.state.items() if k.startswith("app:")}


async def copy_user_to(source, dest, app_name, user_id):
  sessions, user_state = await read_all(source, app_name, user_id)
  problems = check(app_name, user_id, sessions, user_state)
  if not problems:
    already = {s.id for s in (await dest.list_sessions(app_name=app_name, user_id=user_id)).sessions}
    problems += [f"{s.id[:12]} already in dest" for s in sessions if s.id in already]
  if problems:
    raise ValueError("; ".join(problems))
  before = await app_state(dest, app_name, user_id)
  for s in sessions:
    target = await dest.create_session(app_name=app_name, user_id=user_id, session_id=s.id,
                                       state=own_state(s))
    for event in s.events:
      await dest.append_event(target, event.model_copy(deep=True))
  after = await app_state(dest, app_name, user_id)
  state = {"user:" + key: value for key, value in user_state.items()}
  state.update({k: v for k, v in before.items() if after.get(k) != v})
  if state:
    carrier = await dest.create_session(app_name=app_name, user_id=user_id, state=state)
    await dest.delete_session(app_name=app_name, user_id=user_id, session_id=carrier.id)
