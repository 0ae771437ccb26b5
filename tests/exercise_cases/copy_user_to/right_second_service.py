"""Writes through a second service object of its own on dest's database (a new
SqliteSessionService on the file, or a new DatabaseSessionService on the URL), closed after;
validation is one recursive walk over everything the copy writes, ids included."""

from google.adk.sessions import DatabaseSessionService
from google.adk.sessions.sqlite_session_service import SqliteSessionService

PREFIXES = ("user:", "app:", "temp:")


def contains_nul(value) -> bool:
  if isinstance(value, str):
    return "\0" in value
  if isinstance(value, dict):
    return any(contains_nul(k) or contains_nul(v) for k, v in value.items())
  if isinstance(value, list):
    return any(contains_nul(v) for v in value)
  return False


def second_service(dest):
  if isinstance(dest, SqliteSessionService):
    return SqliteSessionService(dest._db_path)
  return DatabaseSessionService(dest.db_engine.url.render_as_string(hide_password=False))


def written(s):
  """What a copy of session s writes: its id, its own state, its events."""
  return {"id": s.id, "state": {k: v for k, v in s.state.items() if not k.startswith(PREFIXES)},
          "events": [e.model_dump(mode="json") for e in s.events]}


async def copy_user_to(source, dest, app_name, user_id):
  listed = await source.list_sessions(app_name=app_name, user_id=user_id)
  sessions = [await source.get_session(app_name=app_name, user_id=user_id, session_id=s.id)
              for s in listed.sessions]
  user_state = await source.get_user_state(app_name=app_name, user_id=user_id)
  bad = [s.id[:16] for s in sessions if len(s.id) > 128 or contains_nul(written(s))
         or any(len(e.id) > 128 or len(e.invocation_id or "") > 256 for e in s.events)]
  if bad or len(app_name) > 128 or len(user_id) > 128 or contains_nul([app_name, user_id,
                                                                       user_state]):
    raise ValueError(f"PostgreSQL cannot hold sessions {bad} (ids over their size or "
                     "U+0000), or the names or the user state")
  writer = second_service(dest)
  try:
    mine = await writer.list_sessions(app_name=app_name, user_id=user_id)
    if {s.id for s in mine.sessions} & {s.id for s in sessions}:
      raise ValueError("a session of this user with the same id is already in dest")
    look = await writer.create_session(app_name=app_name, user_id=user_id)
    app_before = {k: v for k, v in look.state.items() if k.startswith("app:")}
    await writer.delete_session(app_name=app_name, user_id=user_id, session_id=look.id)
    replayed = set()
    for s in sessions:
      await writer.create_session(app_name=app_name, user_id=user_id, session_id=s.id,
                                  state=written(s)["state"])
      for event in s.events:
        copy = await writer.get_session(app_name=app_name, user_id=user_id, session_id=s.id)
        await writer.append_event(copy, event)
        replayed |= set(event.actions.state_delta)
    state = {"user:" + k: v for k, v in user_state.items()}
    state.update({k: v for k, v in app_before.items() if k in replayed})
    if state:
      carrier = await writer.create_session(app_name=app_name, user_id=user_id, state=state)
      await writer.delete_session(app_name=app_name, user_id=user_id, session_id=carrier.id)
  finally:
    await writer.close()
